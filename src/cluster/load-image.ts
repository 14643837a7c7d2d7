// `tkube load image`: copies images from the host's Docker into every node of a cluster, so pods
// can use locally built images with no registry.
import type { ImageLoadResult } from '../providers/types.js';
import { ClusterError, errorMessage } from './errors.js';
import { assertValidClusterName } from './name.js';
import { dockerProvider } from './nodes/node-provider.js';
import { clusterPaths, type Environment, loadClusterRecord } from './state.js';

export interface LoadImageOptions {
  env?: Environment;
  onNode?: (event: { node: string; imported: string[]; skipped: string[] }) => void;
}

export async function loadImages(
  cluster: string,
  images: readonly string[],
  options: LoadImageOptions = {},
): Promise<ImageLoadResult> {
  assertValidClusterName(cluster);
  if (images.length === 0)
    throw new ClusterError('no image given', 'name at least one image: tkube load image IMAGE...');
  const record = await loadClusterRecord(clusterPaths(cluster, options.env ?? process.env));
  if (record.nodes === 0) {
    throw new ClusterError(`cluster ${JSON.stringify(cluster)} has no nodes to load images into`);
  }
  const provider = dockerProvider();
  await provider.checkAvailable().catch((error: unknown) => {
    throw new ClusterError(errorMessage(error));
  });
  try {
    return await provider.loadImages(cluster, [...images], { onNode: options.onNode });
  } catch (error) {
    throw new ClusterError(`cannot load ${images.join(', ')}: ${errorMessage(error)}`);
  }
}
