// Waits until the named nodes have registered and report Ready, watching the Node objects.
import type { Node } from '../../api/types/core-v1.generated.js';
import { NODES } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { ClusterError } from '../errors.js';

export function isNodeReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export async function waitForNodesReady(
  client: Client,
  names: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const nodes = client.resource<Node>(NODES);
  const pending = new Set(names);
  const deadline = AbortSignal.timeout(timeoutMs);
  const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const observe = (node: Node) => {
    if (isNodeReady(node)) pending.delete(node.metadata?.name ?? '');
  };
  while (pending.size > 0 && !stop.aborted) {
    const list = await nodes.list('');
    for (const node of list.items) observe(node);
    if (pending.size === 0) return;
    try {
      for await (const event of nodes.watch('', {
        resourceVersion: list.metadata.resourceVersion,
        signal: stop,
      })) {
        if (event.type === 'ERROR') break;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') observe(event.object);
        if (pending.size === 0) return;
      }
    } catch (error) {
      if (!stop.aborted) throw error;
    }
  }
  signal?.throwIfAborted();
  if (pending.size > 0) {
    throw new ClusterError(
      `nodes not Ready after ${Math.round(timeoutMs / 1000)} s: ${[...pending].join(', ')}`,
      'see the agent log in the node: docker exec <node> cat /var/log/tkube-agent.log',
    );
  }
}

/** Adds labels a kubelet may not set on itself (roles), as kubeadm does after joining. */
export async function labelNodes(
  client: Client,
  labels: ReadonlyMap<string, Record<string, string>>,
): Promise<void> {
  const nodes = client.resource<Node>(NODES);
  await Promise.all(
    [...labels]
      .filter(([, values]) => Object.keys(values).length > 0)
      .map(([name, values]) => nodes.patch('', name, 'merge', { metadata: { labels: values } })),
  );
}
