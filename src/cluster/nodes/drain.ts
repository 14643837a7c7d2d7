// `kubectl drain` as `tkube node remove` needs it (k8s.io/kubectl/pkg/drain): cordon the node,
// refuse pods no controller would re-create, evict the others through the Eviction API
// (honouring PodDisruptionBudgets: a 429 is retried), skipping DaemonSet-managed and mirror
// pods, and wait until the evicted pods are gone.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import { NODES, PODS } from '../../client/resources.js';
import { ApiError, isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { ClusterError } from '../errors.js';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const RETRY_MS = 500;

/** Whether drain leaves the pod alone, as kubectl's daemonSetFilter and mirrorPodFilter do. */
function skipped(pod: Pod): boolean {
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return true;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  return (
    pod.metadata?.ownerReferences?.some((owner) => owner.controller && owner.kind === 'DaemonSet') ?? false
  );
}

export async function drainNode(client: Client, node: string, timeoutMs: number): Promise<void> {
  await client.resource<Node>(NODES).patch('', node, 'merge', { spec: { unschedulable: true } });
  const pods = client.resource<Pod>(PODS);
  const deadline = Date.now() + timeoutMs;
  const onNode = async () =>
    (await pods.list('', { fieldSelector: `spec.nodeName=${node}` })).items.filter((pod) => !skipped(pod));
  let remaining = await onNode();
  // kubectl's unreplicatedFilter: a pod no controller would re-create is lost, so refuse.
  const unmanaged = remaining.filter(
    (pod) =>
      pod.status?.phase !== 'Succeeded' &&
      pod.status?.phase !== 'Failed' &&
      !pod.metadata?.ownerReferences?.some((owner) => owner.controller),
  );
  if (unmanaged.length > 0) {
    throw new ClusterError(
      `cannot drain node ${node}: cannot delete Pods that declare no controller: ${unmanaged
        .map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`)
        .join(', ')}`,
      'the node stays cordoned; --force removes it without draining',
    );
  }
  while (remaining.length > 0) {
    for (const pod of remaining) {
      if (pod.metadata?.deletionTimestamp) continue;
      const { name = '', namespace = '' } = pod.metadata ?? {};
      try {
        await pods.createSubresource(namespace, name, 'eviction', {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name, namespace },
        });
      } catch (error) {
        // 429: a PodDisruptionBudget forbids it for now; kubectl retries every 5 s.
        if (isNotFound(error) || (error instanceof ApiError && error.code === 429)) continue;
        throw error;
      }
    }
    if (Date.now() >= deadline) {
      throw new ClusterError(
        `node ${node} was not drained after ${Math.round(timeoutMs / 1000)} s: ${remaining
          .map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`)
          .join(', ')} still there`,
        'the node stays cordoned; --force removes it without draining',
      );
    }
    await sleep(RETRY_MS);
    remaining = await onNode();
  }
}
