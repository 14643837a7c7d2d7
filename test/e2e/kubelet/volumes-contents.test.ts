// Volumes on a real cluster (`tkube up --nodes 2`), read back through `kubectl logs`: configMap
// and secret items and modes, downwardAPI fields and resources, projected service-account
// tokens (custom audience and the kube-api-access volume the ServiceAccount admission adds),
// memory-backed emptyDir, hostPath, update propagation, and the FailedMount events; a non-root
// container's view (configMap files, envFrom, downwardAPI after a label change, termination messages).
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import {
  busyboxPod,
  eventMessages,
  type KubeletCluster,
  podView,
  useKubeletCluster,
} from './volumes-logs-probes-support.js';

let cluster!: KubeletCluster;
useKubeletCluster('kvol', (c) => {
  cluster = c;
});

const SCRIPT = [
  'echo "== cfg"; cat /etc/cfg/conf/app; echo; stat -L -c %a /etc/cfg/conf/app',
  'echo "== sec"; cat /etc/sec/password; echo; stat -L -c %a /etc/sec/password',
  'echo "== labels"; cat /etc/info/labels; echo',
  'echo "== annotations"; cat /etc/info/annotations; echo',
  'echo "== mem"; cat /etc/info/mem; echo',
  'echo "== vault"; cat /var/run/secrets/tokens/vault-token; echo',
  'echo "== sa-ns"; cat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo',
  'echo "== sa-token"; cat /var/run/secrets/kubernetes.io/serviceaccount/token; echo',
  'echo "== sa-ca"; cat /var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
  'echo "== data"; readlink /etc/cfg/..data',
  'echo "== cache"; mount | grep " /cache " | cut -d" " -f1,3,5',
  'echo "== host"; echo written-by-pod > /host/hello; cat /host/hello',
  'echo "== end"',
  'while true; do echo "cfg=$(cat /etc/cfg/conf/app)"; sleep 2; done',
].join('\n');

function sections(logs: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current = '';
  for (const line of logs.split('\n')) {
    const header = /^== (.+)$/.exec(line);
    if (header) {
      current = header[1]!;
      out[current] = '';
    } else if (current) {
      out[current] = out[current] === '' ? line : `${out[current]}\n${line}`;
    }
  }
  return out;
}

function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('volumes', () => {
  it('hold what the spec says, and configMap updates reach the running container', async () => {
    await cluster.apply([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'app-config', namespace: 'default' },
        data: { 'app.conf': 'mode=fast', other: 'x' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'app-secret', namespace: 'default' },
        stringData: { password: 'hunter2' },
      },
      busyboxPod(
        cluster,
        'volumes',
        {
          containers: [
            {
              name: 'main',
              command: ['sh', '-c', SCRIPT],
              resources: { limits: { memory: '64Mi', cpu: '250m' } },
              volumeMounts: [
                { name: 'cfg', mountPath: '/etc/cfg' },
                { name: 'sec', mountPath: '/etc/sec' },
                { name: 'info', mountPath: '/etc/info' },
                { name: 'tokens', mountPath: '/var/run/secrets/tokens' },
                { name: 'cache', mountPath: '/cache' },
                { name: 'host', mountPath: '/host' },
              ],
            },
          ],
          volumes: [
            {
              name: 'cfg',
              configMap: { name: 'app-config', items: [{ key: 'app.conf', path: 'conf/app', mode: 0o640 }] },
            },
            { name: 'sec', secret: { secretName: 'app-secret', defaultMode: 0o400 } },
            {
              name: 'info',
              downwardAPI: {
                items: [
                  { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                  { path: 'annotations', fieldRef: { fieldPath: "metadata.annotations['note']" } },
                  {
                    path: 'mem',
                    resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1Mi' },
                  },
                ],
              },
            },
            {
              name: 'tokens',
              projected: {
                sources: [
                  {
                    serviceAccountToken: { path: 'vault-token', audience: 'vault', expirationSeconds: 7200 },
                  },
                ],
              },
            },
            { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
            { name: 'host', hostPath: { path: '/var/tkube-e2e-host', type: 'DirectoryOrCreate' } },
          ],
        },
        { labels: { app: 'volumes', tier: 'test' }, annotations: { note: 'say "hi"' } },
      ),
    ]);
    const logs = await cluster.waitFor(async () => {
      const result = await cluster.kubectl(['logs', 'volumes']);
      return result.stdout.includes('== end') ? result.stdout : undefined;
    }, 120_000);
    const got = sections(logs);
    expect(got.cfg).toBe('mode=fast\n640');
    expect(got.sec).toBe('hunter2\n400');
    expect(got.labels).toBe('app="volumes"\ntier="test"');
    expect(got.annotations).toBe('say "hi"');
    expect(got.mem).toBe('64');
    expect(got['sa-ns']).toBe('default');
    expect(got.data).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+$/);
    expect(got.cache).toBe('tmpfs /cache tmpfs');
    expect(got.host).toBe('written-by-pod');

    const vault = jwtClaims(got.vault!);
    expect(vault.aud).toEqual(['vault']);
    expect((vault['kubernetes.io'] as { pod: { name: string } }).pod.name).toBe('volumes');
    expect((vault.exp as number) - (vault.iat as number)).toBe(7200);
    const account = jwtClaims(got['sa-token']!);
    expect(account.sub).toBe('system:serviceaccount:default:default');
    const rootCa = await cluster.json<{ data: Record<string, string> }>([
      'get',
      'configmap',
      'kube-root-ca.crt',
    ]);
    expect(`${got['sa-ca']}\n`).toBe(rootCa.data['ca.crt']);

    const onNode = await execa('docker', [
      'exec',
      `${cluster.name}-node-1`,
      'cat',
      '/var/tkube-e2e-host/hello',
    ]);
    expect(onNode.stdout).toBe('written-by-pod');

    const patched = await cluster.kubectl([
      'patch',
      'configmap',
      'app-config',
      '-p',
      '{"data":{"app.conf":"mode=slow"}}',
    ]);
    expect(patched.exitCode, patched.stderr).toBe(0);
    await cluster.waitFor(async () => {
      const tail = await cluster.kubectl(['logs', 'volumes', '--tail', '1']);
      return tail.stdout === 'cfg=mode=slow' ? true : undefined;
    }, 150_000);
  }, 360_000);

  it('report missing sources and failed hostPath checks as FailedMount events, the pod waiting', async () => {
    await cluster.apply([
      busyboxPod(cluster, 'missing-config', {
        containers: [
          { name: 'main', command: ['sleep', '3600'], volumeMounts: [{ name: 'cfg', mountPath: '/c' }] },
        ],
        volumes: [{ name: 'cfg', configMap: { name: 'absent' } }],
      }),
      busyboxPod(cluster, 'bad-hostpath', {
        containers: [
          { name: 'main', command: ['sleep', '3600'], volumeMounts: [{ name: 'host', mountPath: '/h' }] },
        ],
        volumes: [{ name: 'host', hostPath: { path: '/var/tkube-e2e-absent', type: 'Directory' } }],
      }),
    ]);
    const expected: Record<string, string> = {
      'missing-config': 'MountVolume.SetUp failed for volume "cfg" : configmap "absent" not found',
      'bad-hostpath':
        'MountVolume.SetUp failed for volume "host" : hostPath type check failed: /var/tkube-e2e-absent is not a directory',
    };
    for (const [pod, message] of Object.entries(expected)) {
      const event = await cluster.waitFor(async () => {
        const events = await eventMessages(cluster, pod);
        return events.find((e) => e.reason === 'FailedMount');
      }, 60_000);
      expect(event.message).toBe(message);
      const view = await podView(cluster, pod);
      expect(view.status?.phase).toBe('Pending');
    }
    // Creating the configMap lets the pod start.
    await cluster.apply([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'absent', namespace: 'default' },
        data: { k: 'v' },
      },
    ]);
    await cluster.waitFor(
      async () => ((await podView(cluster, 'missing-config')).status?.phase === 'Running' ? true : undefined),
      90_000,
    );
  }, 240_000);
  it('serve a non-root container: configMap files, envFrom, downwardAPI updates, termination messages', async () => {
    const nonRoot = { runAsUser: 1000, runAsGroup: 1000 };
    const envFrom = [
      { prefix: 'p_', configMapRef: { name: 'nonroot-config' } },
      { secretRef: { name: 'nonroot-secret' } },
      { configMapRef: { name: 'nonroot-absent', optional: true } },
    ];
    await cluster.apply([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'nonroot-config', namespace: 'default' },
        data: { mode: 'quiet', 'dotted.key': 'd' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'nonroot-secret', namespace: 'default' },
        stringData: { pw: 's3cret' },
      },
      busyboxPod(
        cluster,
        'non-root',
        {
          securityContext: nonRoot,
          // The environment as the runtime gives it, unfiltered: a shell drops names like p_dotted.key.
          initContainers: [{ name: 'env', command: ['env'], envFrom }],
          containers: [
            {
              name: 'main',
              command: [
                'sh',
                '-c',
                [
                  'echo "== whoami"; id -u',
                  'echo "== cfg"; cat /etc/cfg/mode; echo',
                  'echo "== end"',
                  'while true; do echo "labels=$(tr "\n" "," < /etc/info/labels)"; sleep 1; done',
                ].join('\n'),
              ],
              volumeMounts: [
                { name: 'cfg', mountPath: '/etc/cfg' },
                { name: 'info', mountPath: '/etc/info' },
              ],
            },
          ],
          volumes: [
            { name: 'cfg', configMap: { name: 'nonroot-config' } },
            {
              name: 'info',
              projected: {
                sources: [
                  {
                    downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
                  },
                ],
              },
            },
          ],
        },
        { labels: { app: 'non-root' } },
      ),
      busyboxPod(cluster, 'term-custom', {
        securityContext: nonRoot,
        restartPolicy: 'Never',
        containers: [
          {
            name: 'main',
            command: ['sh', '-c', 'echo -n DONE > /dev/termination-custom-log'],
            terminationMessagePath: '/dev/termination-custom-log',
          },
        ],
      }),
      busyboxPod(cluster, 'term-fallback', {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'main',
            command: ['sh', '-c', 'echo first; echo -n DONE; exit 1'],
            terminationMessagePolicy: 'FallbackToLogsOnError',
          },
        ],
      }),
    ]);
    const logs = await cluster.waitFor(async () => {
      const result = await cluster.kubectl(['logs', 'non-root']);
      return result.stdout.includes('== end') ? result.stdout : undefined;
    }, 120_000);
    const got = sections(logs);
    expect(got.whoami).toBe('1000');
    const env = (await cluster.kubectl(['logs', 'non-root', '-c', 'env'])).stdout.split('\n');
    expect(env.filter((line) => /^(p_|pw=)/.test(line)).sort()).toEqual([
      'p_dotted.key=d',
      'p_mode=quiet',
      'pw=s3cret',
    ]);
    expect(got.cfg).toBe('quiet');

    const labelled = await cluster.kubectl(['label', 'pod', 'non-root', 'stage=two']);
    expect(labelled.exitCode, labelled.stderr).toBe(0);
    await cluster.waitFor(async () => {
      const tail = await cluster.kubectl(['logs', 'non-root', '--tail', '1']);
      return tail.stdout === 'labels=app="non-root",stage="two"' ? true : undefined;
    }, 30_000);

    type Terminated = { exitCode: number; message?: string };
    const terminated = (name: string) =>
      cluster.waitFor(async () => {
        const pod = await cluster.json<{
          status?: { phase?: string; containerStatuses?: { state?: { terminated?: Terminated } }[] };
        }>(['get', 'pod', name]);
        const state = pod.status?.containerStatuses?.[0]?.state?.terminated;
        return state && pod.status?.phase !== 'Running' ? { phase: pod.status?.phase, state } : undefined;
      }, 90_000);
    const custom = await terminated('term-custom');
    expect(custom).toEqual({
      phase: 'Succeeded',
      state: expect.objectContaining({ exitCode: 0, message: 'DONE' }),
    });
    const fallback = await terminated('term-fallback');
    expect(fallback).toEqual({
      phase: 'Failed',
      state: expect.objectContaining({ exitCode: 1, message: 'first\nDONE' }),
    });
  }, 300_000);
});
