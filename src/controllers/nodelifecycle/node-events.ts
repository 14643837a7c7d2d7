// What the node lifecycle controller reports and does to pods when a node stops being Ready
// (pkg/controller/util/node): node events, and the pods' Ready condition set to False.
import { updatePodCondition } from '../../api/pod-conditions.js';
import type { Node, ObjectReference, Pod } from '../../api/types/core-v1.generated.js';
import type { EventRecorder, EventType } from '../../client/events/index.js';
import { rfc3339 } from '../../client/events/time.js';
import { PODS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';

function nodeReference(name: string, uid: string | undefined): ObjectReference {
  return { apiVersion: 'v1', kind: 'Node', name, ...(uid ? { uid } : {}) };
}

/** `Node <name> event: <message>`. */
export function recordNodeEvent(
  recorder: EventRecorder,
  node: Node,
  type: EventType,
  reason: string,
  message: string,
): void {
  const name = node.metadata?.name ?? '';
  recorder.event(nodeReference(name, node.metadata?.uid), type, reason, `Node ${name} event: ${message}`);
}

/** `Node <name> status is now: <status>`. */
export function recordNodeStatusChange(recorder: EventRecorder, node: Node, status: string): void {
  const name = node.metadata?.name ?? '';
  recorder.event(
    nodeReference(name, node.metadata?.uid),
    'Normal',
    status,
    `Node ${name} status is now: ${status}`,
  );
}

/** Sets Ready=False on the node's pods that still say Ready; throws the failures after trying all. */
export async function markPodsNotReady(
  client: Client,
  recorder: EventRecorder,
  pods: readonly Pod[],
  nodeName: string,
): Promise<void> {
  const failures: string[] = [];
  for (const cached of pods) {
    if (cached.spec?.nodeName !== nodeName) continue;
    const ready = cached.status?.conditions?.find((condition) => condition.type === 'Ready');
    if (!ready) continue;
    const pod: Pod = structuredClone(cached);
    if (!updatePodCondition(pod.status!, { ...ready, status: 'False' }, rfc3339(Date.now()))) continue;
    try {
      await client.resource<Pod>(PODS).updateStatus(pod);
    } catch (error) {
      if (isNotFound(error)) continue;
      failures.push(String(error));
    }
    recorder.event({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', 'NodeNotReady', 'Node is not ready');
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
}
