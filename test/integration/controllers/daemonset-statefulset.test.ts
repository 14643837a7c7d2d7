// Issue 22 (StatefulSet, DaemonSet) with real kubectl on `tkube up --nodes 0 --fake-nodes 3`:
// a DaemonSet on every node, following nodes added and removed, and `kubectl rollout
// status|history|undo` for daemonsets and statefulsets over their ControllerRevisions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet, StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster('sd-workloads', { fakeNodes: 3 });
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** kubectl is slow to start: poll every 200 ms, for up to 30 s. */
const until = <T>(check: () => Promise<T | undefined>): Promise<T> => eventually(check, 30_000, 200);

const podsOf = async (app: string): Promise<Pod[]> =>
  (JSON.parse(await ok(['get', 'pods', '-l', `app=${app}`, '-o', 'json'])).items as Pod[]).filter(
    (pod) => !pod.metadata?.deletionTimestamp,
  );

const DAEMON_SET = `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "busybox:1.36"}]}
`;

const STATEFUL_SET = `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 3
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "busybox:1.36"}]}
`;

describe('daemonsets with kubectl', () => {
  it('runs a pod on every node and reports the rollout done', async () => {
    await ok(['apply', '-f', '-'], DAEMON_SET);
    const out = await ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
    expect(out).toContain('daemon set "agent" successfully rolled out');
    const nodes = (await podsOf('agent')).map((pod) => pod.spec?.nodeName).sort();
    const names = (await ok(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').sort();
    expect(nodes).toEqual(names);
    // The API server's template generation, as a v1 annotation, labels the pods.
    const ds: DaemonSet = JSON.parse(await ok(['get', 'daemonset', 'agent', '-o', 'json']));
    expect(ds.metadata?.annotations?.['deprecated.daemonset.template.generation']).toBe('1');
    expect((await podsOf('agent')).map((pod) => pod.metadata?.labels?.['pod-template-generation'])).toEqual([
      '1',
      '1',
      '1',
    ]);
  }, 90_000);

  it('rolls a new image out with maxSurge, shows the history and undoes it', async () => {
    await ok(['set', 'image', 'daemonset/agent', 'agent=busybox:1.37']);
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
    expect((await podsOf('agent')).map((pod) => pod.spec?.containers[0]?.image)).toEqual([
      'busybox:1.37',
      'busybox:1.37',
      'busybox:1.37',
    ]);
    expect((await podsOf('agent')).map((pod) => pod.metadata?.labels?.['pod-template-generation'])).toEqual([
      '2',
      '2',
      '2',
    ]);
    // Only the server sets it: a client's value is replaced by the stored one.
    await ok(['annotate', 'daemonset', 'agent', '--overwrite', 'deprecated.daemonset.template.generation=7']);
    expect(
      await ok([
        'get',
        'daemonset',
        'agent',
        '-o',
        'jsonpath={.metadata.annotations.deprecated\\.daemonset\\.template\\.generation}',
      ]),
    ).toBe('2');
    const history = await ok(['rollout', 'history', 'daemonset/agent']);
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const detail = await ok(['rollout', 'history', 'daemonset/agent', '--revision=1']);
    expect(detail).toContain('busybox:1.36');
    expect(await ok(['rollout', 'undo', 'daemonset/agent'])).toContain('daemonset.apps/agent rolled back');
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
    const ds: DaemonSet = JSON.parse(await ok(['get', 'daemonset', 'agent', '-o', 'json']));
    expect(ds.spec?.template.spec?.containers[0]?.image).toBe('busybox:1.36');
    expect(ds.metadata?.annotations?.['deprecated.daemonset.template.generation']).toBe('3');
    await until(async () =>
      (await podsOf('agent')).every((pod) => pod.spec?.containers[0]?.image === 'busybox:1.36')
        ? true
        : undefined,
    );
    // The old template came back as the newest revision.
    expect(await ok(['rollout', 'history', 'daemonset/agent'])).toMatch(/2\s+<none>\n3\s+<none>/);
  }, 120_000);

  it('follows nodes added and removed', async () => {
    await ok(['create', '-f', '-'], 'apiVersion: v1\nkind: Node\nmetadata: {name: sd-extra}\n');
    await until(async () => {
      const ds: DaemonSet = JSON.parse(await ok(['get', 'daemonset', 'agent', '-o', 'json']));
      return ds.status?.desiredNumberScheduled === 4 ? true : undefined;
    });
    await until(async () =>
      (await podsOf('agent')).some((pod) =>
        JSON.stringify(pod.spec?.affinity).includes('"values":["sd-extra"]'),
      )
        ? true
        : undefined,
    );
    await ok(['delete', 'node', 'sd-extra']);
    await until(async () => {
      const ds: DaemonSet = JSON.parse(await ok(['get', 'daemonset', 'agent', '-o', 'json']));
      return ds.status?.desiredNumberScheduled === 3 && ds.status.currentNumberScheduled === 3
        ? true
        : undefined;
    });
    await until(async () => ((await podsOf('agent')).length === 3 ? true : undefined));
  }, 90_000);
});

describe('statefulsets with kubectl', () => {
  it('creates ordinal pods and reports the rollout done', async () => {
    await ok(['apply', '-f', '-'], STATEFUL_SET);
    const out = await ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    expect(out).toContain('partitioned roll out complete: 3 new pods have been updated...');
    expect((await podsOf('web')).map((pod) => pod.metadata?.name).sort()).toEqual([
      'web-0',
      'web-1',
      'web-2',
    ]);
  }, 90_000);

  it('rolls a new image out, shows the history and undoes it', async () => {
    await ok(['set', 'image', 'statefulset/web', 'web=busybox:1.37']);
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    expect((await podsOf('web')).every((pod) => pod.spec?.containers[0]?.image === 'busybox:1.37')).toBe(
      true,
    );
    expect(await ok(['rollout', 'history', 'statefulset/web'])).toMatch(/1\s+<none>\n2\s+<none>/);
    expect(await ok(['rollout', 'undo', 'statefulset/web'])).toContain('statefulset.apps/web rolled back');
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    const set: StatefulSet = JSON.parse(await ok(['get', 'statefulset', 'web', '-o', 'json']));
    expect(set.spec?.template.spec?.containers[0]?.image).toBe('busybox:1.36');
    expect(set.status?.currentRevision).toBe(set.status?.updateRevision);
    expect((await podsOf('web')).every((pod) => pod.spec?.containers[0]?.image === 'busybox:1.36')).toBe(
      true,
    );
  }, 180_000);

  it('rolls only the ordinals at or above the partition', async () => {
    await ok([
      'patch',
      'statefulset',
      'web',
      '-p',
      '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}',
    ]);
    await ok(['set', 'image', 'statefulset/web', 'web=busybox:1.38']);
    const out = await ok(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    expect(out).toContain('partitioned roll out complete: 1 new pods have been updated...');
    const images = Object.fromEntries(
      (await podsOf('web')).map((pod) => [pod.metadata?.name, pod.spec?.containers[0]?.image]),
    );
    expect(images).toEqual({ 'web-0': 'busybox:1.36', 'web-1': 'busybox:1.36', 'web-2': 'busybox:1.38' });
    const pods = await ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.hostname}']);
    expect(pods.split(' ').sort()).toEqual(['web-0', 'web-1', 'web-2']);
  }, 120_000);
});
