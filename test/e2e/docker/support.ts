// Shared by the Docker e2e suites: one node image for all of them (built once; parallel files
// wait on the build lock), cluster names and subnets that do not collide with other suites.
import { randomBytes } from 'node:crypto';
import { createDockerClient } from '../../../src/providers/docker/docker-client.js';
import { ensureNodeImage, type NodeImage } from '../../../src/providers/docker/image/node-image.js';
import { DockerProvider } from '../../../src/providers/docker/provider.js';

export const docker = createDockerClient();
export const provider = new DockerProvider(docker);

let image: Promise<NodeImage> | undefined;

/** The offline-built node image with the repository's templates (cached across runs). */
export function sharedNodeImage(): Promise<NodeImage> {
  image ??= ensureNodeImage({ builder: 'offline', docker });
  return image;
}

/** A cluster name unique to this run, under the suite's prefix. */
export function e2eClusterName(suite: string): string {
  return `e2e-${suite}-${randomBytes(3).toString('hex')}`;
}

/** A /24 per suite (10.213.<n>.0/24): each file its own, so parallel files never overlap. */
export function e2eSubnet(n: number): { subnet: string; gateway: string; ip: (host: number) => string } {
  return { subnet: `10.213.${n}.0/24`, gateway: `10.213.${n}.1`, ip: (host) => `10.213.${n}.${host}` };
}
