// ImageLocality: prefers nodes that already hold the pod's images, weighing each image by its size
// and by how many nodes have it (an image everywhere says little about this node).

import { normalizedImageName } from '../cache/cache.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from '../framework/cycle-state.js';
import { MAX_NODE_SCORE } from '../framework/framework.js';
import type { FrameworkHandle } from '../framework/handle.js';
import type { ScorePlugin } from '../framework/interfaces.js';
import { PluginNames } from './names.js';

const MB = 1024 * 1024;
/** Below 23 MB of present images the score is 0. */
export const MIN_THRESHOLD = 23 * MB;
/** Each container counts up to 1000 MB. */
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
  let sum = sumScores;
  if (sum < MIN_THRESHOLD) sum = MIN_THRESHOLD;
  else if (sum > maxThreshold) sum = maxThreshold;
  return Math.trunc((MAX_NODE_SCORE * (sum - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
}

const normalizedImages = new WeakMap<object, readonly string[]>();

/** The pod's init-container and container images, normalised (`:latest` added), computed once per pod. */
function podImages(podInfo: PodInfo): readonly string[] {
  const pod = podInfo.pod;
  let images = normalizedImages.get(pod);
  if (images === undefined) {
    const spec = pod.spec;
    images = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].map((container) =>
      normalizedImageName(container.image ?? ''),
    );
    normalizedImages.set(pod, images);
  }
  return images;
}

export class ImageLocality implements ScorePlugin {
  readonly name = PluginNames.ImageLocality;

  constructor(private readonly handle: FrameworkHandle) {}

  score(_state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): number {
    const images = podImages(podInfo);
    if (nodeInfo.imageStates.size === 0) return calculatePriority(0, images.length);
    const totalNodes = this.handle.snapshot().numNodes;
    let sum = 0;
    for (const image of images) {
      const state = nodeInfo.imageStates.get(image);
      if (state === undefined) continue;
      // scaledImageScore: size × the fraction of nodes holding the image, truncated.
      sum += Math.trunc(state.size * (state.numNodes / totalNodes));
    }
    return calculatePriority(sum, images.length);
  }
}
