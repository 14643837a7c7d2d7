// Follows a set of pods through a watch so a test can check an invariant at every observed step
// (a rollout's surge and availability bounds), not only at the end.
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import type { ResourceClient } from '../../../src/client/types.js';

/**
 * Lists, then watches the pods matching `labelSelector`; after every change `onChange` gets those
 * not being deleted. Returns a function that ends the watch and waits for it.
 */
export async function observePods(
  pods: ResourceClient<Pod>,
  namespace: string,
  labelSelector: string,
  onChange: (active: Pod[]) => void,
): Promise<() => Promise<void>> {
  const list = await pods.list(namespace, { labelSelector });
  const live = new Map(list.items.map((pod) => [pod.metadata!.name!, pod]));
  const abort = new AbortController();
  const watching = (async () => {
    const events = pods.watch(namespace, {
      labelSelector,
      resourceVersion: list.metadata.resourceVersion,
      signal: abort.signal,
    });
    for await (const { type, object } of events) {
      if (type === 'ERROR' || type === 'BOOKMARK') continue;
      if (type === 'DELETED') live.delete(object.metadata!.name!);
      else live.set(object.metadata!.name!, object);
      onChange([...live.values()].filter((pod) => !pod.metadata?.deletionTimestamp));
    }
  })();
  return async () => {
    abort.abort();
    await watching;
  };
}
