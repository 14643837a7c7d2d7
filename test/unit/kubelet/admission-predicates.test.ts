import { describe, expect, it } from 'vitest';
import { checkPodAdmission } from '../../../src/agent/kubelet/admission/predicates.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';

const node: Node = {
  metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1', 'kubernetes.io/os': 'linux' } },
  spec: {},
  status: { allocatable: { cpu: '2', memory: '4Gi', pods: '3', 'ephemeral-storage': '10Gi' } },
};

function pod(
  name: string,
  spec: Partial<NonNullable<Pod['spec']>> = {},
  requests?: Record<string, string>,
): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'c', ...(requests ? { resources: { requests } } : {}) }],
      ...spec,
    },
  };
}

describe('kubelet admission: the general predicates', () => {
  it('admits a pod that fits', () => {
    expect(checkPodAdmission(pod('a', {}, { cpu: '1', memory: '1Gi' }), node, [], false)).toBeUndefined();
  });

  it('rejects what the node has no room for, with upstream reason and message', () => {
    const running = [pod('x', {}, { cpu: '1500m' })];
    expect(checkPodAdmission(pod('a', {}, { cpu: '1' }), node, running, false)).toEqual({
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000",
    });
    expect(checkPodAdmission(pod('a', {}, { memory: '5Gi' }), node, [], false)?.reason).toBe('OutOfmemory');
    expect(checkPodAdmission(pod('a'), node, [pod('x'), pod('y'), pod('z')], false)).toEqual({
      reason: 'OutOfpods',
      message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    });
    // An extended resource the node does not have at all is not this kubelet's to refuse.
    expect(checkPodAdmission(pod('a', {}, { 'example.com/gpu': '1' }), node, [], false)).toBeUndefined();
    const gpuNode: Node = {
      ...node,
      status: { allocatable: { ...node.status!.allocatable, 'example.com/gpu': '1' } },
    };
    expect(checkPodAdmission(pod('a', {}, { 'example.com/gpu': '2' }), gpuNode, [], false)?.reason).toBe(
      'OutOfexample.com/gpu',
    );
  });

  it('rejects a nodeSelector or required node affinity the node does not match', () => {
    expect(checkPodAdmission(pod('a', { nodeSelector: { disk: 'ssd' } }), node, [], false)).toEqual({
      reason: 'NodeAffinity',
      message: 'Predicate NodeAffinity failed',
    });
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }],
        },
      },
    };
    expect(checkPodAdmission(pod('a', { affinity }), node, [], false)).toBeUndefined();
  });

  it('rejects an untolerated NoExecute taint, except for static pods; other effects are the scheduler’s', () => {
    const tainted: Node = {
      ...node,
      spec: {
        taints: [
          { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
          { key: 'other', effect: 'NoSchedule' },
        ],
      },
    };
    expect(checkPodAdmission(pod('a'), tainted, [], false)).toEqual({
      reason: 'TaintToleration',
      message: 'Predicate TaintToleration failed',
    });
    expect(checkPodAdmission(pod('a'), tainted, [], true)).toBeUndefined();
    const tolerating = pod('a', {
      tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }],
    });
    expect(checkPodAdmission(tolerating, tainted, [], false)).toBeUndefined();
  });

  it('reports only the first failure, in upstream order, and checks the OS last', () => {
    const both = pod('a', { nodeSelector: { disk: 'ssd' } }, { cpu: '3' });
    expect(checkPodAdmission(both, node, [], false)?.reason).toBe('OutOfcpu');
    expect(checkPodAdmission(pod('a', { os: { name: 'windows' } }), node, [], false)?.reason).toBe(
      'PodOSNotSupported',
    );
    const labelled: Pod = { ...pod('a'), metadata: { name: 'a', labels: { 'kubernetes.io/os': 'windows' } } };
    expect(checkPodAdmission(labelled, node, [], false)?.reason).toBe('PodOSSelectorNodeLabelDoesNotMatch');
  });

  it('checks only host ports and the OS while the node is not known yet', () => {
    expect(
      checkPodAdmission(pod('a', { nodeSelector: { disk: 'ssd' } }, { cpu: '100' }), undefined, [], false),
    ).toBeUndefined();
  });
});
