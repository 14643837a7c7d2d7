// The pod informer's index by node (`spec.nodeName`), shared by the node lifecycle and taint
// eviction controllers to find the pods bound to a node.
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { Indexers, SharedInformer } from '../../client/informers/index.js';

export const PODS_BY_NODE_INDEX = 'spec.nodeName';

export const PODS_BY_NODE_INDEXERS: Indexers<Pod> = {
  [PODS_BY_NODE_INDEX]: (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []),
};

export function podsOnNode(pods: SharedInformer<Pod>, nodeName: string): Pod[] {
  return pods.indexer.byIndex(PODS_BY_NODE_INDEX, nodeName);
}
