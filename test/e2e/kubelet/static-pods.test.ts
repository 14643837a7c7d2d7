// Static pods on a real node: a manifest put into the node's /etc/kubernetes/manifests runs, and
// its mirror pod in the API follows it (recreated when deleted, replaced on edits, removed with
// the file).
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { BUSYBOX, type KubeletCluster, startKubeletCluster, waitFor, waitForPod } from './pods-support.js';

const MANIFESTS = '/etc/kubernetes/manifests';
let cluster: KubeletCluster;
let node: string;

function manifest(message: string): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: static-web',
    '  labels: {tier: static}',
    'spec:',
    '  terminationGracePeriodSeconds: 1',
    '  containers:',
    '  - name: app',
    `    image: ${BUSYBOX}`,
    `    command: [sh, -c, 'echo ${message}; exec sleep 3600']`,
    '    resources:',
    '      limits: {cpu: 250m, memory: 64Mi}',
    '',
  ].join('\n');
}

async function putManifest(text: string): Promise<void> {
  // Written in place through a shell in the node: the kubelet's watch sees it at once.
  const result = await execa(
    'docker',
    [
      'exec',
      '-i',
      node,
      'sh',
      '-c',
      `cat > ${MANIFESTS}/.web.tmp && mv ${MANIFESTS}/.web.tmp ${MANIFESTS}/web.yaml`,
    ],
    {
      input: text,
      reject: false,
    },
  );
  expect(result.stderr).toBe('');
}

const mirrorName = () => `static-web-${node}`;
const isRunningMirror = (pod: Pod) =>
  pod.status?.phase === 'Running' && pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined;

beforeAll(async () => {
  cluster = await startKubeletCluster('static', 1);
  node = cluster.nodes[0]!;
}, 180_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

describe('static pods', () => {
  let mirror: Pod;
  let containerId: string;

  it('runs a manifest and shows it as a Running mirror pod', async () => {
    await putManifest(manifest('first'));
    mirror = await waitForPod(cluster, mirrorName(), isRunningMirror, 60_000);
    const annotations = mirror.metadata?.annotations ?? {};
    expect(annotations['kubernetes.io/config.source']).toBe('file');
    expect(annotations['kubernetes.io/config.hash']).toBe(annotations['kubernetes.io/config.mirror']);
    expect(annotations['kubernetes.io/config.seen']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(mirror.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Node',
      name: node,
      controller: true,
    });
    expect(mirror.spec?.tolerations).toContainEqual({ operator: 'Exists', effect: 'NoExecute' });
    containerId = mirror.status?.containerStatuses?.[0]?.containerID ?? '';
    expect(containerId).toMatch(/^containerd:\/\//);
    const get = await cluster.kubectl(['get', 'pod', mirrorName(), '-o', 'jsonpath={.status.phase}']);
    expect(get.stdout).toBe('Running');
  }, 90_000);

  it('brings a deleted mirror pod back while the container keeps running', async () => {
    const deleted = await cluster.kubectl(['delete', 'pod', mirrorName(), '--wait=false']);
    expect(deleted.exitCode).toBe(0);
    const back = await waitForPod(
      cluster,
      mirrorName(),
      (pod) =>
        pod.metadata?.uid !== mirror.metadata?.uid &&
        !pod.metadata?.deletionTimestamp &&
        isRunningMirror(pod),
      30_000,
    );
    expect(back.status?.containerStatuses?.[0]?.containerID).toBe(containerId);
    expect(back.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  }, 60_000);

  it('limits the pod cgroup to the pod total', async () => {
    const uid = mirror.metadata?.annotations?.['kubernetes.io/config.hash'] ?? '';
    const read = (path: string) => execa('docker', ['exec', node, 'cat', path], { reject: false });
    const memory = await read(`/sys/fs/cgroup/memory/kubepods/pod${uid}/memory.limit_in_bytes`);
    const cpu = await read(`/sys/fs/cgroup/cpu/kubepods/pod${uid}/cpu.cfs_quota_us`);
    expect({ memory: memory.stdout, cpu: cpu.stdout }).toEqual({
      memory: String(64 * 1024 * 1024),
      cpu: '25000',
    });
  });

  it('replaces the pod when its manifest changes, and removes it with the file', async () => {
    const hash = mirror.metadata?.annotations?.['kubernetes.io/config.hash'];
    await putManifest(manifest('second'));
    const replaced = await waitForPod(
      cluster,
      mirrorName(),
      (pod) => pod.metadata?.annotations?.['kubernetes.io/config.hash'] !== hash && isRunningMirror(pod),
      60_000,
    );
    expect(replaced.spec?.containers[0]?.command?.[2]).toContain('second');
    expect(replaced.status?.containerStatuses?.[0]?.containerID).not.toBe(containerId);
    // The first pod's cgroup went with it, in every hierarchy.
    for (const hierarchy of ['memory', 'cpu', 'pids']) {
      await waitFor(
        () =>
          execa('docker', ['exec', node, 'test', '-e', `/sys/fs/cgroup/${hierarchy}/kubepods/pod${hash}`], {
            reject: false,
          }),
        (result) => result.exitCode === 1,
        30_000,
      );
    }

    await execa('docker', ['exec', node, 'rm', `${MANIFESTS}/web.yaml`]);
    await waitFor(
      () => cluster.kubectl(['get', 'pods', '-o', 'name']),
      (result) => result.exitCode === 0 && !result.stdout.includes(mirrorName()),
      60_000,
      'the mirror pod to go',
    );
    const replacedId =
      replaced.status?.containerStatuses?.[0]?.containerID?.replace('containerd://', '') ?? '';
    const tasks = await execa('docker', ['exec', node, 'ctr', '-n', 'k8s.io', 'tasks', 'ls', '-q'], {
      reject: false,
    });
    expect(tasks.stdout).not.toContain(replacedId);
  }, 150_000);
});
