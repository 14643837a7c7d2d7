// The admission chain with real kubectl: ServiceAccount (default account, projected token
// volume), Priority, DefaultTolerationSeconds, RuntimeClass, PodSecurity, and what every
// namespace gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('admission');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

interface PodJson {
  spec: {
    serviceAccountName: string;
    priority: number;
    tolerations: { key: string; tolerationSeconds: number }[];
    volumes: { name: string; projected?: { sources: Record<string, unknown>[] } }[];
    containers: { volumeMounts: { name: string; mountPath: string; readOnly: boolean }[] }[];
  };
}

describe('admission', () => {
  it('gives every namespace a default service account and the root CA', async () => {
    await ok(['create', 'namespace', 'apps']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ok(['get', 'serviceaccount', 'default', '-n', 'apps', '-o', 'name'])).toBe(
      'serviceaccount/default',
    );
    const ca = await ok([
      'get',
      'configmap',
      'kube-root-ca.crt',
      '-n',
      'apps',
      '-o',
      'jsonpath={.data.ca\\.crt}',
    ]);
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('admits pods with service account, token volume, priority and default tolerations', async () => {
    await ok(['run', 'web', '-n', 'apps', '--image=nginx:1.27']);
    const pod = JSON.parse(await ok(['get', 'pod', 'web', '-n', 'apps', '-o', 'json'])) as PodJson;
    expect(pod.spec.serviceAccountName).toBe('default');
    expect(pod.spec.priority).toBe(0);
    expect(pod.spec.tolerations.map((t) => [t.key, t.tolerationSeconds])).toEqual([
      ['node.kubernetes.io/not-ready', 300],
      ['node.kubernetes.io/unreachable', 300],
    ]);
    const volume = pod.spec.volumes.find((v) => v.name.startsWith('kube-api-access-'))!;
    expect(volume.projected!.sources.map((s) => Object.keys(s)[0])).toEqual([
      'serviceAccountToken',
      'configMap',
      'downwardAPI',
    ]);
    expect(pod.spec.containers[0]!.volumeMounts).toEqual([
      { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    ]);
    const critical = await ok([
      'run',
      'critical',
      '-n',
      'apps',
      '--image=nginx',
      '--overrides={"spec":{"priorityClassName":"system-cluster-critical"}}',
    ]);
    expect(critical).toBe('pod/critical created');
    expect(await ok(['get', 'pod', 'critical', '-n', 'apps', '-o', 'jsonpath={.spec.priority}'])).toBe(
      '2000000000',
    );
    const unknownClass = await cluster.kubectl([
      'run',
      'x',
      '-n',
      'apps',
      '--image=nginx',
      '--overrides={"spec":{"priorityClassName":"nope"}}',
    ]);
    expect(unknownClass.stderr).toBe(
      'Error from server (Forbidden): pods "x" is forbidden: no PriorityClass with name nope was found',
    );
    const explicitPolicy = await cluster.kubectl([
      'run',
      'z',
      '-n',
      'apps',
      '--image=nginx',
      '--overrides={"spec":{"preemptionPolicy":"Never"}}',
    ]);
    expect(explicitPolicy.stderr).toBe(
      'Error from server (Forbidden): pods "z" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
    );
    const noAccount = await cluster.kubectl([
      'run',
      'y',
      '-n',
      'apps',
      '--image=nginx',
      '--overrides={"spec":{"serviceAccountName":"ghost"}}',
    ]);
    expect(noAccount.stderr).toBe(
      'Error from server (Forbidden): pods "y" is forbidden: error looking up service account apps/ghost: serviceaccount "ghost" not found',
    );
  });

  it('gives pods their RuntimeClass overhead and scheduling, and refuses overhead set by hand', async () => {
    await ok(['create', 'namespace', 'runtimes']);
    const runtimeClass = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'sandboxed' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: {
        nodeSelector: { sandbox: 'true' },
        tolerations: [
          { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' },
          // Tolerates longer than the default not-ready toleration (300 s) the pod got first, so
          // it replaces that one.
          {
            key: 'node.kubernetes.io/not-ready',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 600,
          },
        ],
      },
    };
    await ok(['create', '-f', '-'], JSON.stringify(runtimeClass));
    const run = (name: string, spec: object) =>
      cluster.kubectl([
        'run',
        name,
        '-n',
        'runtimes',
        '--image=nginx',
        `--overrides=${JSON.stringify({ spec })}`,
      ]);
    expect(
      (await run('sandboxed', { runtimeClassName: 'sandboxed', nodeSelector: { disk: 'ssd' } })).exitCode,
    ).toBe(0);
    const pod = JSON.parse(await ok(['get', 'pod', 'sandboxed', '-n', 'runtimes', '-o', 'json'])) as {
      spec: { overhead: object; nodeSelector: object; tolerations: object[] };
    };
    expect(pod.spec.overhead).toEqual({ cpu: '250m', memory: '120Mi' });
    expect(pod.spec.nodeSelector).toEqual({ disk: 'ssd', sandbox: 'true' });
    expect(pod.spec.tolerations).toEqual([
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' },
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 600,
      },
    ]);
    // The same overhead, written differently, is the class's own.
    const same = await run('same', {
      runtimeClassName: 'sandboxed',
      overhead: { cpu: '0.25', memory: '120Mi' },
    });
    expect(same.stderr).toBe('');

    const refusals: [string, object, string][] = [
      ['ghost', { runtimeClassName: 'ghost' }, 'pod rejected: RuntimeClass "ghost" not found'],
      [
        'by-hand',
        { overhead: { cpu: '1' } },
        'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
      ],
      [
        'other',
        { runtimeClassName: 'sandboxed', overhead: { cpu: '1' } },
        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
      ],
      [
        'clash',
        { runtimeClassName: 'sandboxed', nodeSelector: { sandbox: 'false' } },
        'conflict: runtimeClass.scheduling.nodeSelector[sandbox] = true; pod.spec.nodeSelector[sandbox] = false',
      ],
    ];
    for (const [name, spec, why] of refusals) {
      expect((await run(name, spec)).stderr).toBe(
        `Error from server (Forbidden): pods "${name}" is forbidden: ${why}`,
      );
    }
  });

  it('enforces and warns with PodSecurity namespace labels', async () => {
    await ok(['create', 'namespace', 'locked']);
    await ok([
      'label',
      'namespace',
      'locked',
      'pod-security.kubernetes.io/enforce=baseline',
      'pod-security.kubernetes.io/warn=restricted',
    ]);
    const privileged = await cluster.kubectl([
      'run',
      'priv',
      '-n',
      'locked',
      '--image=nginx',
      '--privileged',
    ]);
    expect(privileged.exitCode).toBe(1);
    expect(privileged.stderr).toBe(
      'Error from server (Forbidden): pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "priv" must not set securityContext.privileged=true)',
    );
    const plain = await cluster.kubectl(['run', 'plain', '-n', 'locked', '--image=nginx']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false',
    );
    const deployment = await cluster.kubectl([
      'create',
      'deployment',
      'risky',
      '-n',
      'locked',
      '--image=nginx',
    ]);
    expect(deployment.exitCode, deployment.stderr).toBe(0);
    expect(deployment.stderr).toContain('Warning: would violate PodSecurity "restricted:latest"');
  });

  it('tracks and enforces resource quotas, and applies limit ranges', async () => {
    await ok(['create', 'namespace', 'budget']);
    await ok(['create', 'quota', 'small', '-n', 'budget', '--hard=configmaps=3,requests.cpu=1']);
    // The quota controller fills in status (kube-root-ca.crt already counts as one configmap).
    let used = '';
    for (let i = 0; i < 30 && used === ''; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      used = await ok(['get', 'quota', 'small', '-n', 'budget', '-o', 'jsonpath={.status.used.configmaps}']);
    }
    expect(used).toBe('1');
    await ok(['create', 'configmap', 'one', '-n', 'budget']);
    await ok(['create', 'configmap', 'two', '-n', 'budget']);
    const over = await cluster.kubectl(['create', 'configmap', 'three', '-n', 'budget']);
    expect(over.stderr).toBe(
      'error: failed to create configmap: configmaps "three" is forbidden: exceeded quota: small, requested: configmaps=1, used: configmaps=3, limited: configmaps=3',
    );
    const unbounded = await cluster.kubectl(['run', 'free', '-n', 'budget', '--image=nginx']);
    expect(unbounded.stderr).toBe(
      'Error from server (Forbidden): pods "free" is forbidden: failed quota: small: must specify requests.cpu for: free',
    );

    await ok(
      ['apply', '-n', 'budget', '-f', '-'],
      [
        'apiVersion: v1',
        'kind: LimitRange',
        'metadata: {name: limits}',
        'spec:',
        '  limits:',
        '  - type: Container',
        '    max: {cpu: "1"}',
        '    default: {cpu: 500m}',
        '    defaultRequest: {cpu: 250m}',
      ].join('\n'),
    );
    // Now defaults fill in the request the quota needs.
    await ok(['run', 'defaulted', '-n', 'budget', '--image=nginx']);
    const resources = JSON.parse(
      await ok(['get', 'pod', 'defaulted', '-n', 'budget', '-o', 'jsonpath={.spec.containers[0].resources}']),
    ) as { requests: { cpu: string }; limits: { cpu: string } };
    expect(resources).toEqual({ requests: { cpu: '250m' }, limits: { cpu: '500m' } });
    const tooBig = await cluster.kubectl([
      'run',
      'big',
      '-n',
      'budget',
      '--image=nginx',
      '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}',
    ]);
    expect(tooBig.stderr).toBe(
      'Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    );
  });
});
