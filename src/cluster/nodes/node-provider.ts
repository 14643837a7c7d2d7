// The node provider `up`, `down` and the node commands use: Docker. Its own module so that
// commands that only find and remove nodes do not load the node image builder and agent install.
import { DockerProvider } from '../../providers/docker/provider.js';
import type { NodeProvider } from '../../providers/types.js';

export function dockerProvider(): NodeProvider {
  return new DockerProvider();
}
