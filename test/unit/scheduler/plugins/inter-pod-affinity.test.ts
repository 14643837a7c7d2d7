import { describe, expect, it } from 'vitest';
import type { Affinity, PodAffinityTerm } from '../../../../src/api/types/core-v1.generated.js';
import { ClusterObjects } from '../../../../src/scheduler/cluster-objects.js';
import { InterPodAffinity } from '../../../../src/scheduler/plugins/inter-pod-affinity/plugin.js';
import { filterWith, frameworkOf, node, nodeInfo, pod, scoresOf } from '../fixtures.js';

const AFFINITY = "node(s) didn't match pod affinity rules";
const ANTI = "node(s) didn't match pod anti-affinity rules";
const EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules";
const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function term(app: string, topologyKey = ZONE, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm {
  return { labelSelector: { matchLabels: { app } }, topologyKey, ...extra };
}

function withAffinity(name: string, labels: Record<string, string>, affinity: Affinity, namespace?: string) {
  return pod(name, { labels, namespace, spec: { affinity } });
}

/** a, b in zone1; x in zone2. */
function nodes(
  pods: { a?: ReturnType<typeof pod>[]; b?: ReturnType<typeof pod>[]; x?: ReturnType<typeof pod>[] } = {},
) {
  return [
    nodeInfo(node('a', { labels: { [ZONE]: 'zone1' } }), pods.a ?? []),
    nodeInfo(node('b', { labels: { [ZONE]: 'zone1' } }), pods.b ?? []),
    nodeInfo(node('x', { labels: { [ZONE]: 'zone2' } }), pods.x ?? []),
  ];
}

function run(infos: ReturnType<typeof nodes>, incoming: ReturnType<typeof pod>, objects?: ClusterObjects) {
  const { framework } = frameworkOf(infos, [(handle) => new InterPodAffinity(handle)], objects);
  return filterWith(framework, incoming, infos);
}

describe('InterPodAffinity filter', () => {
  it('required affinity: only the zone holding a matching pod', () => {
    const incoming = withAffinity(
      'p',
      { app: 'web' },
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('db')] } },
    );
    expect(run(nodes({ a: [pod('db', { labels: { app: 'db' } })] }), incoming)).toEqual({
      a: '',
      b: '',
      x: AFFINITY,
    });
  });

  it('required affinity to itself: the first pod of the group may go anywhere with the topology label', () => {
    const incoming = withAffinity(
      'p',
      { app: 'web' },
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web')] } },
    );
    const infos = [...nodes(), nodeInfo(node('bare'))];
    expect(run(infos as ReturnType<typeof nodes>, incoming)).toEqual({ a: '', b: '', x: '', bare: AFFINITY });
  });

  it('required affinity to others with no such pod anywhere fails everywhere', () => {
    const incoming = withAffinity(
      'p',
      { app: 'web' },
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('db')] } },
    );
    expect(run(nodes(), incoming)).toEqual({ a: AFFINITY, b: AFFINITY, x: AFFINITY });
  });

  it('required anti-affinity by hostname keeps off nodes with a matching pod', () => {
    const incoming = withAffinity(
      'p',
      { app: 'web' },
      { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web', HOST)] } },
    );
    expect(run(nodes({ a: [pod('w', { labels: { app: 'web' } })] }), incoming)).toEqual({
      a: ANTI,
      b: '',
      x: '',
    });
  });

  it('existing pods’ required anti-affinity keeps matching pods out of their zone', () => {
    const guard = withAffinity(
      'guard',
      { app: 'guard' },
      { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web')] } },
    );
    expect(run(nodes({ a: [guard] }), pod('p', { labels: { app: 'web' } }))).toEqual({
      a: EXISTING,
      b: EXISTING,
      x: '',
    });
    expect(run(nodes({ a: [guard] }), pod('p', { labels: { app: 'api' } }))).toEqual({ a: '', b: '', x: '' });
  });

  it('terms apply to the pod’s own namespace unless namespaces are given', () => {
    const other = pod('db', { namespace: 'other', labels: { app: 'db' } });
    const sameNamespace = withAffinity(
      'p',
      {},
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('db')] } },
    );
    expect(run(nodes({ a: [other] }), sameNamespace).a).toBe(AFFINITY);
    const named = withAffinity(
      'p',
      {},
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [term('db', ZONE, { namespaces: ['other'] })],
        },
      },
    );
    expect(run(nodes({ a: [other] }), named)).toEqual({ a: '', b: '', x: AFFINITY });
  });

  it('namespaceSelector selects namespaces by their labels; {} selects all', () => {
    const objects = new ClusterObjects();
    objects.namespaces.upsert({ metadata: { name: 'team-a', labels: { team: 'a' } } });
    objects.namespaces.upsert({ metadata: { name: 'team-b', labels: { team: 'b' } } });
    const inB = pod('db', { namespace: 'team-b', labels: { app: 'db' } });
    const selectA = withAffinity(
      'p',
      {},
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            term('db', ZONE, { namespaceSelector: { matchLabels: { team: 'a' } } }),
          ],
        },
      },
    );
    expect(run(nodes({ a: [inB] }), selectA, objects).a).toBe(AFFINITY);
    const selectB = withAffinity(
      'p',
      {},
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            term('db', ZONE, { namespaceSelector: { matchLabels: { team: 'b' } } }),
          ],
        },
      },
    );
    expect(run(nodes({ a: [inB] }), selectB, objects)).toEqual({ a: '', b: '', x: AFFINITY });
    const all = withAffinity(
      'p',
      {},
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [term('db', ZONE, { namespaceSelector: {} })],
        },
      },
    );
    expect(run(nodes({ a: [inB] }), all, objects)).toEqual({ a: '', b: '', x: AFFINITY });
  });

  it('existing anti-affinity with a namespaceSelector matches the incoming pod’s namespace labels', () => {
    const objects = new ClusterObjects();
    objects.namespaces.upsert({ metadata: { name: 'prod', labels: { env: 'prod' } } });
    const guard = withAffinity(
      'guard',
      {},
      {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            term('web', ZONE, { namespaceSelector: { matchLabels: { env: 'prod' } } }),
          ],
        },
      },
    );
    expect(
      run(nodes({ x: [guard] }), pod('p', { namespace: 'prod', labels: { app: 'web' } }), objects),
    ).toEqual({ a: '', b: '', x: EXISTING });
    expect(
      run(nodes({ x: [guard] }), pod('p', { namespace: 'dev', labels: { app: 'web' } }), objects),
    ).toEqual({ a: '', b: '', x: '' });
  });

  it('an unparsable selector makes the pod unschedulable', () => {
    const broken = withAffinity(
      'p',
      {},
      {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: ZONE, labelSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } },
          ],
        },
      },
    );
    expect(run(nodes(), broken).a).toMatch(/^parsing pod: /);
  });
});

describe('InterPodAffinity score', () => {
  const db = () => pod('db', { labels: { app: 'db' } });

  it('preferred affinity favours the zone with matching pods', () => {
    const incoming = withAffinity(
      'p',
      {},
      {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term('db') }],
        },
      },
    );
    const infos = nodes({ a: [db()] });
    const { framework } = frameworkOf(infos, [(handle) => new InterPodAffinity(handle)]);
    expect(scoresOf(framework, incoming, infos)).toEqual({ a: 100, b: 100, x: 0 });
  });

  it('preferred anti-affinity avoids it', () => {
    const incoming = withAffinity(
      'p',
      {},
      {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term('db') }],
        },
      },
    );
    const infos = nodes({ a: [db()] });
    const { framework } = frameworkOf(infos, [(handle) => new InterPodAffinity(handle)]);
    expect(scoresOf(framework, incoming, infos)).toEqual({ a: 0, b: 0, x: 100 });
  });

  it('existing pods’ terms count too: preferred at their weight, required at hardPodAffinityWeight', () => {
    const attracting = withAffinity(
      'friend',
      {},
      {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 10, podAffinityTerm: term('web', HOST) },
          ],
        },
      },
    );
    const requiring = withAffinity(
      'needy',
      {},
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('web', HOST)] } },
    );
    const infos = nodes({ a: [attracting], b: [requiring] });
    const { framework } = frameworkOf(infos, [(handle) => new InterPodAffinity(handle)]);
    // a: +10, b: +1 (hard weight), x: 0 → 100, 10, 0.
    expect(scoresOf(framework, pod('p', { labels: { app: 'web' } }), infos)).toEqual({ a: 100, b: 10, x: 0 });
  });

  it('no terms anywhere: all nodes 0', () => {
    const infos = nodes({ a: [db()] });
    const { framework } = frameworkOf(infos, [(handle) => new InterPodAffinity(handle)]);
    expect(scoresOf(framework, pod('p'), infos)).toEqual({ a: 0, b: 0, x: 0 });
  });
});
