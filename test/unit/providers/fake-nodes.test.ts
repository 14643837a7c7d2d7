// Fake nodes in a whole in-process control plane: they register as their own node identities,
// get pod CIDRs from node IPAM and turn Ready, renew their leases, run the pods bound to them
// (Running, an address from the node's CIDR) and finish their deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_LEASE_NAMESPACE } from '../../../src/agent/node/lease.js';
import { ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../../src/api/ipv4.js';
import type { Lease } from '../../../src/api/types/coordination-v1.generated.js';
import type { Binding, Node, Pod, ServiceAccount } from '../../../src/api/types/core-v1.generated.js';
import { LEASES, NODES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import { EXIT_CODE_ANNOTATION, FAKE_NODE_LABEL } from '../../../src/providers/fake/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

const NODE_NAMES = ['fake-node-0', 'fake-node-1', 'fake-node-2'];

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane({ fakeNodes: { count: 3, leaseRenewIntervalMs: 300 } });
  await eventually(() =>
    cp.admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .get('default', 'default')
      .catch(() => undefined),
  );
}, 30_000);
afterAll(() => cp?.stop());

const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');

async function bound(name: string, node: string, pod: Partial<Pod> = {}): Promise<Pod> {
  const pods = cp.admin.resource<Pod>(PODS);
  const created = await pods.create({
    ...pod,
    metadata: { name, namespace: 'default', ...pod.metadata },
    // Bound by hand below: the default scheduler must leave these pods alone.
    spec: { containers: [{ name: 'app', image: 'nginx' }], schedulerName: 'by-hand', ...pod.spec },
  });
  const binding: Binding = {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace: 'default' },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
  await pods.createSubresource('default', name, 'binding', binding);
  return created;
}

function phaseOf(name: string, phase: string): Promise<Pod> {
  return eventually(async () => {
    const pod = await cp.admin.resource<Pod>(PODS).get('default', name);
    return pod.status?.phase === phase ? pod : undefined;
  });
}

describe('fake nodes', () => {
  it('register as Ready nodes with the kubelet labels, capacity and a pod CIDR', async () => {
    const nodes = (await cp.admin.resource<Node>(NODES).list('')).items;
    expect(nodes.map((node) => node.metadata?.name).sort()).toEqual(NODE_NAMES);
    const cidrs = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata!.name!;
      // Ready once startControlPlane resolved: start waits for the nodes' CIDRs.
      expect(ready(node)).toMatchObject({ status: 'True', reason: 'KubeletReady' });
      expect(node.status?.conditions?.map((c) => c.type)).toEqual([
        'MemoryPressure',
        'DiskPressure',
        'PIDPressure',
        'Ready',
      ]);
      expect(node.metadata?.labels).toMatchObject({
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'beta.kubernetes.io/os': 'linux',
        [FAKE_NODE_LABEL]: 'true',
      });
      expect(node.metadata?.labels?.['kubernetes.io/arch']).toMatch(/^[a-z0-9]+$/);
      expect(node.status?.capacity).toMatchObject({ cpu: '8', memory: '32Gi', pods: '110' });
      expect(node.status?.allocatable).toEqual(node.status?.capacity);
      expect(node.status?.addresses).toEqual([
        { type: 'InternalIP', address: expect.stringMatching(/^198\.18\.0\.\d+$/) },
        { type: 'Hostname', address: name },
      ]);
      expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^fake:\/\//);
      expect(node.spec?.podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
      cidrs.add(node.spec!.podCIDR!);
    }
    expect(cidrs.size).toBe(3);
  });

  it('renew their leases, owned by their Nodes', async () => {
    const leases = cp.admin.resource<Lease>(LEASES);
    const node = await cp.admin.resource<Node>(NODES).get('', 'fake-node-1');
    const first = await leases.get(NODE_LEASE_NAMESPACE, 'fake-node-1');
    expect(first.spec).toMatchObject({ holderIdentity: 'fake-node-1', leaseDurationSeconds: 40 });
    expect(first.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'fake-node-1', uid: node.metadata?.uid },
    ]);
    const renewed = await eventually(async () => {
      const lease = await leases.get(NODE_LEASE_NAMESPACE, 'fake-node-1');
      return lease.spec?.renewTime !== first.spec?.renewTime ? lease : undefined;
    });
    expect(Date.parse(renewed.spec!.renewTime!)).toBeGreaterThan(Date.parse(first.spec!.renewTime!));
  });

  it('run a bound pod: Running and Ready, with an address from the node CIDR', async () => {
    await bound('web', 'fake-node-0', {
      spec: {
        containers: [
          { name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } },
          { name: 'sidecar', image: 'busybox' },
        ],
        initContainers: [{ name: 'setup', image: 'busybox' }],
      },
    });
    const pod = await phaseOf('web', 'Running');
    const node = await cp.admin.resource<Node>(NODES).get('', 'fake-node-0');
    const status = pod.status!;
    expect(ipv4CidrContains(parseIpv4Cidr(node.spec!.podCIDR!)!, parseIpv4(status.podIP!)!)).toBe(true);
    expect(status.podIP).not.toMatch(/\.(0|1)$/);
    expect(status.podIPs).toEqual([{ ip: status.podIP }]);
    expect(status.hostIP).toBe(node.status?.addresses?.[0]?.address);
    expect(status.hostIPs).toEqual([{ ip: status.hostIP }]);
    expect(status.qosClass).toBe('Burstable');
    expect(status.startTime).toMatch(/Z$/);
    expect(status.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['PodReadyToStartContainers', 'True'],
      ['Initialized', 'True'],
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
      ['PodScheduled', 'True'],
    ]);
    expect(status.containerStatuses?.map((s) => s.name)).toEqual(['app', 'sidecar']);
    expect(status.containerStatuses?.[0]).toMatchObject({
      name: 'app',
      ready: true,
      started: true,
      restartCount: 0,
      image: 'docker.io/library/nginx:1.27',
      imageID: 'fake://docker.io/library/nginx:1.27',
      containerID: expect.stringMatching(/^fake:\/\/[0-9a-f]{64}$/),
      state: { running: { startedAt: expect.any(String) } },
    });
    expect(status.initContainerStatuses).toEqual([
      expect.objectContaining({
        name: 'setup',
        ready: true,
        started: false,
        state: { terminated: expect.objectContaining({ exitCode: 0, reason: 'Completed' }) },
      }),
    ]);
  });

  it('give pods of one node distinct addresses, and host-network pods the node address', async () => {
    await bound('one', 'fake-node-2');
    await bound('two', 'fake-node-2');
    await bound('host', 'fake-node-2', {
      spec: { hostNetwork: true, containers: [{ name: 'a', image: 'x' }] },
    });
    const [one, two, host] = await Promise.all(
      ['one', 'two', 'host'].map((name) => phaseOf(name, 'Running')),
    );
    expect(one!.status?.podIP).not.toBe(two!.status?.podIP);
    expect(host!.status?.podIP).toBe(host!.status?.hostIP);
  });

  it('finish the deletion of their pods', async () => {
    await bound('doomed', 'fake-node-1');
    await phaseOf('doomed', 'Running');
    const pods = cp.admin.resource<Pod>(PODS);
    // The default grace period: the apiserver only marks the pod; the kubelet removes it.
    const marked = (await pods.delete('default', 'doomed')) as Pod;
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    await eventually(() =>
      pods.get('default', 'doomed').then(
        () => undefined,
        (error: unknown) => (isNotFound(error) ? true : undefined),
      ),
    );
  });

  it('leave a deleted pod to its finalizers once its containers are gone', async () => {
    await bound('held', 'fake-node-0', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await phaseOf('held', 'Running');
    const pods = cp.admin.resource<Pod>(PODS);
    await pods.delete('default', 'held');
    // The kubelet's own delete, with grace 0, is all it does: no more writes follow.
    const finished = await eventually(async () => {
      const pod = await pods.get('default', 'held');
      return pod.metadata?.deletionGracePeriodSeconds === 0 ? pod : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await pods.get('default', 'held');
    expect(later.metadata?.resourceVersion).toBe(finished.metadata?.resourceVersion);
    await pods.patch('default', 'held', 'merge', { metadata: { finalizers: null } });
    await eventually(() =>
      pods.get('default', 'held').then(
        () => undefined,
        (error: unknown) => (isNotFound(error) ? true : undefined),
      ),
    );
  });

  it('end pods whose containers exit, when their restart policy lets them', async () => {
    const exiting = (name: string, code: number) =>
      bound(name, 'fake-node-1', {
        metadata: { name, annotations: { [EXIT_CODE_ANNOTATION]: String(code) } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox' }] },
      });
    await Promise.all([exiting('job', 0), exiting('fails', 3)]);
    const done = await phaseOf('job', 'Succeeded');
    expect(done.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
    expect(done.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PodCompleted',
    });
    const failed = await phaseOf('fails', 'Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
    });
  });

  it('leave pods of other nodes alone', async () => {
    await bound('elsewhere', 'real-node');
    await phaseOf('web', 'Running');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const pod = await cp.admin.resource<Pod>(PODS).get('default', 'elsewhere');
    expect(pod.status?.phase).toBe('Pending');
  });
});
