// Storage on `tkube up --nodes 2` with real containers: a StatefulSet of 2 gets its claims bound on
// the default class `standard`; data written by a pod is read back by its replacement (pinned to
// its volume's node) after the pod is deleted and after its node container is restarted (the data
// lives on a docker volume of the node's, which `tkube down` removes); a claim
// grows from 1Gi to 2Gi; deleting a claim under reclaim Delete removes its directory from the
// node, Retain keeps it and leaves the volume Released; a generic ephemeral volume's claim comes
// and goes with its pod; a claim the kubelet cannot use shows as FailedMount in kubectl describe.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/control-plane.js';
import { BUSYBOX, type KubeletCluster, startKubeletCluster } from '../kubelet/pods-support.js';

let cluster: KubeletCluster;
beforeAll(async () => {
  cluster = await startKubeletCluster('st');
}, 300_000);
/** The docker volume holding the local-path data of the node db-0 ran on. */
let dataVolume = '';
afterAll(async () => {
  await cluster?.down();
  // `tkube down` takes the nodes' data volumes with the cluster.
  if (dataVolume !== '') {
    const listed = await execa('docker', ['volume', 'ls', '-q', '--filter', `name=${dataVolume}`]);
    expect(listed.stdout.trim()).toBe('');
  }
}, 120_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

const jsonpath = (kind: string, name: string, path: string) =>
  ok(['get', kind, name, '-o', `jsonpath=${path}`]);

async function waitFor(kind: string, name: string, path: string, expected: string, timeoutMs = 90_000) {
  await eventually(async () => {
    const result = await cluster.kubectl(['get', kind, name, '-o', `jsonpath=${path}`]);
    return result.exitCode === 0 && result.stdout === expected ? true : undefined;
  }, timeoutMs);
}

async function gone(kind: string, name: string, timeoutMs = 60_000) {
  await eventually(async () => {
    const result = await cluster.kubectl(['get', kind, name]);
    return result.exitCode !== 0 && result.stderr.includes('NotFound') ? true : undefined;
  }, timeoutMs);
}

/** Whether a directory exists inside a node container. */
async function directoryOnNode(node: string, path: string): Promise<boolean> {
  const result = await execa('docker', ['exec', node, 'test', '-d', path], { reject: false });
  return result.exitCode === 0;
}

const read = (pod: string) => ok(['exec', pod, '--', 'cat', '/data/message']);

describe('local-path volumes on Docker nodes', () => {
  let volumeOf0 = '';
  let nodeOf0 = '';

  it('binds the claims of a StatefulSet of 2 on the default class', async () => {
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db' },
        spec: {
          replicas: 2,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: {
            metadata: { labels: { app: 'db' } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [
                {
                  name: 'db',
                  image: BUSYBOX,
                  command: ['sh', '-c', 'sleep 3600'],
                  volumeMounts: [{ name: 'data', mountPath: '/data' }],
                },
              ],
            },
          },
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        },
      }),
    );
    for (const index of [0, 1]) {
      await waitFor('pvc', `data-db-${index}`, '{.status.phase}', 'Bound');
      await waitFor('pod', `db-${index}`, '{.status.phase}', 'Running');
      expect(await jsonpath('pvc', `data-db-${index}`, '{.spec.storageClassName}')).toBe('standard');
    }
    volumeOf0 = await jsonpath('pvc', 'data-db-0', '{.spec.volumeName}');
    nodeOf0 = await jsonpath('pod', 'db-0', '{.spec.nodeName}');
    expect(
      await jsonpath(
        'pv',
        volumeOf0,
        '{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}',
      ),
    ).toBe(nodeOf0);
    expect(await directoryOnNode(nodeOf0, `/var/lib/tkube/local-path/${volumeOf0}`)).toBe(true);
  }, 240_000);

  it("keeps the data for the pod's replacement, on the volume's node", async () => {
    await ok(['exec', 'db-0', '--', 'sh', '-c', 'echo kept > /data/message']);
    await ok(['delete', 'pod', 'db-0', '--wait=true', '--timeout=60s']);
    await waitFor('pod', 'db-0', '{.status.phase}', 'Running');
    expect(await jsonpath('pod', 'db-0', '{.spec.nodeName}')).toBe(nodeOf0);
    expect((await read('db-0')).trim()).toBe('kept');
  }, 180_000);

  it('keeps the data across a restart of the node container, on a volume of its own', async () => {
    const mounts = await execa('docker', [
      'inspect',
      nodeOf0,
      '--format',
      '{{range .Mounts}}{{.Type}} {{.Name}} {{.Destination}};{{end}}',
    ]);
    dataVolume = `${nodeOf0}-local-path`;
    expect(mounts.stdout.split(';')).toContain(`volume ${dataVolume} /var/lib/tkube/local-path`);
    await execa('docker', ['restart', nodeOf0]);
    await eventually(async () => {
      const result = await cluster.kubectl(['exec', 'db-0', '--', 'cat', '/data/message']);
      return result.exitCode === 0 && result.stdout.trim() === 'kept' ? true : undefined;
    }, 180_000);
  }, 240_000);

  it('grows a claim from 1Gi to 2Gi', async () => {
    await ok(['patch', 'pvc', 'data-db-0', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    await waitFor('pvc', 'data-db-0', '{.status.capacity.storage}', '2Gi');
    expect(await jsonpath('pv', volumeOf0, '{.spec.capacity.storage}')).toBe('2Gi');
  }, 60_000);

  it("removes a Delete volume's directory with its claim", async () => {
    const volume = await jsonpath('pvc', 'data-db-1', '{.spec.volumeName}');
    const node = await jsonpath('pod', 'db-1', '{.spec.nodeName}');
    await ok(['scale', 'statefulset', 'db', '--replicas=1']);
    await gone('pod', 'db-1', 90_000);
    await ok(['delete', 'pvc', 'data-db-1', '--wait=true', '--timeout=60s']);
    await gone('pv', volume);
    await eventually(
      async () => ((await directoryOnNode(node, `/var/lib/tkube/local-path/${volume}`)) ? undefined : true),
      30_000,
    );
  }, 180_000);

  it('keeps a Retain volume Released, its directory in place', async () => {
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'kept' },
        provisioner: 'tkube.dev/local-path',
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'WaitForFirstConsumer',
      }),
    );
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'kept' },
            spec: {
              storageClassName: 'kept',
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
            },
          },
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'keeper' },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [
                {
                  name: 'c',
                  image: BUSYBOX,
                  command: ['sh', '-c', 'echo retained > /data/message && sleep 3600'],
                  volumeMounts: [{ name: 'data', mountPath: '/data' }],
                },
              ],
              volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'kept' } }],
            },
          },
        ],
      }),
    );
    await waitFor('pod', 'keeper', '{.status.phase}', 'Running');
    const volume = await jsonpath('pvc', 'kept', '{.spec.volumeName}');
    const node = await jsonpath('pod', 'keeper', '{.spec.nodeName}');
    await ok(['delete', 'pod', 'keeper', '--wait=true', '--timeout=60s']);
    await ok(['delete', 'pvc', 'kept', '--wait=true', '--timeout=60s']);
    await waitFor('pv', volume, '{.status.phase}', 'Released');
    expect(await directoryOnNode(node, `/var/lib/tkube/local-path/${volume}`)).toBe(true);
  }, 180_000);

  it("gives a pod's generic ephemeral volume a claim that goes with the pod", async () => {
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'scratcher' },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'c',
              image: BUSYBOX,
              command: ['sh', '-c', 'echo scratch > /data/message && sleep 3600'],
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
          volumes: [
            {
              name: 'data',
              ephemeral: {
                volumeClaimTemplate: {
                  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
                },
              },
            },
          ],
        },
      }),
    );
    await waitFor('pod', 'scratcher', '{.status.phase}', 'Running');
    expect(await jsonpath('pvc', 'scratcher-data', '{.status.phase}')).toBe('Bound');
    expect((await read('scratcher')).trim()).toBe('scratch');
    await ok(['delete', 'pod', 'scratcher', '--wait=true', '--timeout=60s']);
    await gone('pvc', 'scratcher-data');
  }, 180_000);

  it('reports a claim the kubelet cannot use as FailedMount, shown by kubectl describe', async () => {
    // Placed by nodeName, so the scheduler's own check of the claim does not keep it away.
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'claimless' },
        spec: {
          nodeName: nodeOf0,
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'c', image: BUSYBOX, command: ['sleep', '3600'] }],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'nothere' } }],
        },
      }),
    );
    const described = await eventually(async () => {
      const out = await ok(['describe', 'pod', 'claimless']);
      return out.includes('FailedMount') ? out : undefined;
    }, 90_000);
    expect(described).toMatch(
      /Warning\s+FailedMount\s+.*kubelet\s+Unable to attach or mount volumes: unmounted volumes=\[data\], unattached volumes=\[\], failed to process volumes=\[data\]: error processing PVC default\/nothere: failed to fetch PVC from API server: persistentvolumeclaims "nothere" not found/,
    );
    expect(await jsonpath('pod', 'claimless', '{.status.phase}')).toBe('Pending');
    await ok(['delete', 'pod', 'claimless', '--wait=true', '--timeout=60s']);
  }, 150_000);
});
