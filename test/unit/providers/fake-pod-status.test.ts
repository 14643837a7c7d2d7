// The fake kubelet's pieces without a control plane: the pod status it reports and the patch it
// sends, pod addresses from a node CIDR, the exit-code annotation, node facts and pod network sizing.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { DEFAULT_CLUSTER_SETTINGS } from '../../../src/controllers/context.js';
import {
  clusterSettingsForNodes,
  EXIT_CODE_ANNOTATION,
  exitCodeOf,
  fakeNodeCapacity,
  fakeNodeFacts,
  fakePodStatus,
  MAX_FAKE_NODES,
  PodAddresses,
  podStatusPatch,
  reportsSameStatus,
} from '../../../src/providers/fake/index.js';

const NOW = new Date('2025-05-01T10:00:00.123Z');
const LATER = new Date('2025-05-01T10:05:00Z');
const network = { podIP: '10.244.1.2', hostIP: '198.18.0.10' };

function scheduledPod(extra: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: { nodeName: 'fake-node-0', containers: [{ name: 'web', image: 'nginx' }], ...extra },
    status: {
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2025-05-01T09:59:59Z' }],
    },
  };
}

describe('fakePodStatus', () => {
  it('reports a running pod as the kubelet does', () => {
    const pod = scheduledPod({
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          volumeMounts: [
            { name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
            { name: 'data', mountPath: '/data' },
          ],
          resources: { requests: { cpu: '100m' }, limits: { memory: '64Mi' } },
        },
        { name: 'agent', image: 'registry.local:5000/agent@sha256:abc' },
      ],
      initContainers: [
        { name: 'setup', image: 'busybox' },
        { name: 'proxy', image: 'envoy', restartPolicy: 'Always' },
      ],
    });
    const status = fakePodStatus(pod, { ...network, now: NOW });
    expect(status).toMatchObject({
      phase: 'Running',
      qosClass: 'BestEffort',
      hostIP: '198.18.0.10',
      hostIPs: [{ ip: '198.18.0.10' }],
      podIP: '10.244.1.2',
      podIPs: [{ ip: '10.244.1.2' }],
      startTime: '2025-05-01T10:00:00Z',
    });
    expect(status.conditions).toEqual([
      { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: '2025-05-01T10:00:00Z' },
      { type: 'Initialized', status: 'True', lastTransitionTime: '2025-05-01T10:00:00Z' },
      { type: 'Ready', status: 'True', lastTransitionTime: '2025-05-01T10:00:00Z' },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: '2025-05-01T10:00:00Z' },
      // The scheduler's transition time stays.
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2025-05-01T09:59:59Z' },
    ]);
    // Sorted by name, as the kubelet sorts them.
    expect(status.containerStatuses?.map((s) => s.name)).toEqual(['agent', 'web']);
    const web = status.containerStatuses![1]!;
    expect(web).toEqual({
      name: 'web',
      state: { running: { startedAt: '2025-05-01T10:00:00Z' } },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: 'docker.io/library/nginx:1.27',
      imageID: 'fake://docker.io/library/nginx:1.27',
      containerID: expect.stringMatching(/^fake:\/\/[0-9a-f]{64}$/),
      started: true,
      resources: { limits: { memory: '64Mi' }, requests: { cpu: '100m' } },
      volumeMounts: [
        {
          name: 'token',
          mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
          readOnly: true,
          recursiveReadOnly: 'Disabled',
        },
        { name: 'data', mountPath: '/data' },
      ],
    });
    expect(status.containerStatuses![0]!.image).toBe('registry.local:5000/agent@sha256:abc');
    expect(status.initContainerStatuses?.map((s) => [s.name, s.ready, s.started])).toEqual([
      ['setup', true, false],
      ['proxy', true, true],
    ]);
    expect(status.initContainerStatuses![0]!.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
      containerID: status.initContainerStatuses![0]!.containerID,
    });
    expect(status.initContainerStatuses![1]!.state?.running).toBeDefined();
  });

  it('is stable: a second report of an unchanged pod says the same', () => {
    const pod = scheduledPod();
    const first = fakePodStatus(pod, { ...network, now: NOW });
    const second = fakePodStatus({ ...pod, status: first }, { ...network, now: LATER });
    expect(second).toEqual(first);
    expect(reportsSameStatus(first, second)).toBe(true);
    expect(reportsSameStatus(pod.status, first)).toBe(false);
  });

  it('restarts a container whose image changed in place', () => {
    const pod = scheduledPod();
    const first = fakePodStatus(pod, { ...network, now: NOW });
    const updated = { ...pod, spec: { ...pod.spec!, containers: [{ name: 'web', image: 'nginx:1.28' }] } };
    const second = fakePodStatus({ ...updated, status: first }, { ...network, now: LATER });
    const [before, after] = [first.containerStatuses![0]!, second.containerStatuses![0]!];
    expect(after.restartCount).toBe(1);
    expect(after.image).toBe('docker.io/library/nginx:1.28');
    expect(after.containerID).not.toBe(before.containerID);
    expect(after.state).toEqual({ running: { startedAt: '2025-05-01T10:05:00Z' } });
    expect(after.lastState?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
      containerID: before.containerID,
      finishedAt: '2025-05-01T10:05:00Z',
    });
    expect(reportsSameStatus(first, second)).toBe(false);
  });

  it('holds Ready back until every readiness gate is True', () => {
    const pod = scheduledPod({
      readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'x/y' }],
    });
    pod.status!.conditions!.push({ type: 'example.com/lb', status: 'False' });
    const status = fakePodStatus(pod, { ...network, now: NOW });
    expect(status.conditions?.map((c) => c.type)).toEqual([
      'example.com/lb',
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ]);
    expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message:
        'the status of pod readiness gate "example.com/lb" is not "True", but False, corresponding condition of pod readiness gate "x/y" does not exist.',
    });
  });

  it('reports terminated containers and a terminal phase once they exited for good', () => {
    const pod = scheduledPod({ restartPolicy: 'Never' });
    const running = fakePodStatus(pod, { ...network, now: NOW });
    const failed = fakePodStatus({ ...pod, status: running }, { ...network, now: LATER, exitCode: 2 });
    expect(failed.phase).toBe('Failed');
    expect(failed.containerStatuses![0]).toMatchObject({
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode: 2,
          reason: 'Error',
          startedAt: '2025-05-01T10:00:00Z',
          finishedAt: '2025-05-01T10:05:00Z',
        },
      },
    });
    expect(failed.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['PodReadyToStartContainers', 'False', undefined],
      ['Initialized', 'True', undefined],
      ['Ready', 'False', 'PodFailed'],
      ['ContainersReady', 'False', 'PodFailed'],
      ['PodScheduled', 'True', undefined],
    ]);
    const succeeded = fakePodStatus({ ...pod, status: running }, { ...network, now: LATER, exitCode: 0 });
    expect(succeeded.conditions?.find((c) => c.type === 'Initialized')?.reason).toBe('PodCompleted');
    expect(succeeded.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('PodCompleted');
  });
});

describe('podStatusPatch', () => {
  it('sends the uid, the reported fields, new conditions and the order of all', () => {
    const pod = scheduledPod();
    const status = fakePodStatus(pod, { ...network, now: NOW });
    const patch = podStatusPatch(pod, status) as { metadata: unknown; status: Record<string, unknown> };
    expect(patch.metadata).toEqual({ uid: 'uid-1' });
    expect(patch.status['$setElementOrder/conditions']).toEqual([
      { type: 'PodReadyToStartContainers' },
      { type: 'Initialized' },
      { type: 'Ready' },
      { type: 'ContainersReady' },
      { type: 'PodScheduled' },
    ]);
    // PodScheduled did not change, so it is not sent; new ones carry metav1.Time's null.
    const conditions = patch.status.conditions as { type: string; lastProbeTime?: null }[];
    expect(conditions.map((c) => c.type)).toEqual([
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
    ]);
    expect(conditions.every((c) => c.lastProbeTime === null)).toBe(true);
    expect(patch.status).toMatchObject({ phase: 'Running', podIP: '10.244.1.2', hostIP: '198.18.0.10' });
    expect(patch.status.qosClass).toBeUndefined();
  });
});

describe('PodAddresses', () => {
  it('hands out addresses round-robin, never the network, gateway or broadcast address', () => {
    const addresses = new PodAddresses('10.244.3.0/29');
    expect(addresses.capacity).toBe(5);
    const given = ['a', 'b', 'c', 'd', 'e'].map((uid) => addresses.allocate(uid));
    expect(given).toEqual(['10.244.3.2', '10.244.3.3', '10.244.3.4', '10.244.3.5', '10.244.3.6']);
    expect(addresses.allocate('f')).toBeUndefined();
    expect(addresses.allocate('a')).toBe('10.244.3.2');
    addresses.release('b');
    expect(addresses.allocate('f')).toBe('10.244.3.3');
  });

  it('takes back addresses pods report, unless another pod or the bridge has them', () => {
    const addresses = new PodAddresses('10.244.3.0/24');
    expect(addresses.claim('a', '10.244.3.7')).toBe(true);
    expect(addresses.claim('a', '10.244.3.7')).toBe(true);
    expect(addresses.claim('b', '10.244.3.7')).toBe(false);
    expect(addresses.claim('b', '10.244.3.1')).toBe(false);
    expect(addresses.claim('b', '10.244.4.7')).toBe(false);
    expect(addresses.allocate('a')).toBe('10.244.3.7');
  });
});

describe('exitCodeOf', () => {
  const withCode = (code: string, restartPolicy?: string): Pod => ({
    metadata: { annotations: { [EXIT_CODE_ANNOTATION]: code } },
    spec: { containers: [], restartPolicy },
  });

  it('applies to pods whose containers may stay exited', () => {
    expect(exitCodeOf(withCode('0', 'Never'))).toBe(0);
    expect(exitCodeOf(withCode('1', 'Never'))).toBe(1);
    expect(exitCodeOf(withCode('0', 'OnFailure'))).toBe(0);
    // The kubelet would restart these.
    expect(exitCodeOf(withCode('1', 'OnFailure'))).toBeUndefined();
    expect(exitCodeOf(withCode('0'))).toBeUndefined();
    expect(exitCodeOf(withCode('256', 'Never'))).toBeUndefined();
    expect(exitCodeOf(withCode('x', 'Never'))).toBeUndefined();
  });
});

describe('fake node facts', () => {
  it('default to cpu 8, memory 32Gi and 110 pods, capped by the pod CIDR', () => {
    const capacity = fakeNodeCapacity({ cpu: '16', memory: '64Gi' });
    expect(capacity).toMatchObject({ cpu: '16', memory: '64Gi', pods: '110' });
    expect(() => fakeNodeCapacity({ cpu: 'lots' })).toThrow();
    const facts = fakeNodeFacts('fake-node-3', capacity, 'boot', 61);
    expect(facts.resources.capacity.pods).toBe('61');
    expect(facts.resources.allocatable).toEqual(facts.resources.capacity);
    expect(fakeNodeFacts('fake-node-3', capacity, 'boot', 253).resources.capacity.pods).toBe('110');
    expect(facts.systemInfo).toMatchObject({
      osImage: 'tkube fake node',
      operatingSystem: 'linux',
      kubeletVersion: 'v1.33.0',
      containerRuntimeVersion: expect.stringMatching(/^fake:\/\//),
    });
    // The same machine after a restart.
    expect(fakeNodeFacts('fake-node-3', capacity, 'other').systemInfo.machineID).toBe(
      facts.systemInfo.machineID,
    );
  });
});

describe('clusterSettingsForNodes', () => {
  it('keeps /24 per node up to 256 nodes, then cuts smaller CIDRs', () => {
    expect(clusterSettingsForNodes(3, DEFAULT_CLUSTER_SETTINGS)).toBe(DEFAULT_CLUSTER_SETTINGS);
    expect(clusterSettingsForNodes(256, DEFAULT_CLUSTER_SETTINGS).nodeCidrMaskSize).toBe(24);
    expect(clusterSettingsForNodes(257, DEFAULT_CLUSTER_SETTINGS).nodeCidrMaskSize).toBe(25);
    expect(clusterSettingsForNodes(1000, DEFAULT_CLUSTER_SETTINGS)).toMatchObject({
      clusterCidr: '10.244.0.0/16',
      nodeCidrMaskSize: 26,
    });
    expect(MAX_FAKE_NODES).toBe(4096);
    expect(clusterSettingsForNodes(MAX_FAKE_NODES, DEFAULT_CLUSTER_SETTINGS).nodeCidrMaskSize).toBe(28);
  });
});
