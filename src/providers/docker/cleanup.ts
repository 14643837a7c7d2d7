// Removing a cluster's resources, found by label: containers first (they hold the volumes and
// the network), then volumes, then the network. Safe to repeat and to run on a half-created
// cluster or concurrently with another removal.
import { setTimeout as sleep } from 'node:timers/promises';
import type Dockerode from 'dockerode';
import type { RemovedResources } from '../types.js';
import { engineMessage, isConflict, isNotFound } from './errors.js';
import { clusterFilter, containerdVolumeName } from './names.js';

const RETRIES = 50;
const RETRY_MS = 100;

export async function removeClusterResources(docker: Dockerode, cluster: string): Promise<RemovedResources> {
  const filters = { label: [clusterFilter(cluster)] };
  const containers = await docker.listContainers({ all: true, filters });
  await Promise.all(
    containers.map((container) =>
      removeWithRetry(() => docker.getContainer(container.Id).remove({ force: true, v: true })),
    ),
  );
  const { Volumes: volumes } = await docker.listVolumes({ filters });
  await Promise.all(
    (volumes ?? []).map((volume) => removeWithRetry(() => docker.getVolume(volume.Name).remove())),
  );
  const networks = await docker.listNetworks({ filters });
  // What is still attached is not the cluster's (a shared registry): detach it, keep it.
  await Promise.all(networks.map((network) => detachOthers(docker, network.Id)));
  await Promise.all(networks.map((network) => removeWithRetry(() => docker.getNetwork(network.Id).remove())));
  return {
    containers: containers.map((container) => (container.Names[0] ?? container.Id).replace(/^\//, '')).sort(),
    volumes: (volumes ?? []).map((volume) => volume.Name).sort(),
    networks: networks.map((network) => network.Name).sort(),
  };
}

/** One node's container, then its containerd volume. */
export async function removeNodeResources(docker: Dockerode, node: string): Promise<void> {
  await removeWithRetry(() => docker.getContainer(node).remove({ force: true, v: true }));
  await removeWithRetry(() => docker.getVolume(containerdVolumeName(node)).remove());
}

async function detachOthers(docker: Dockerode, network: string): Promise<void> {
  const info = (await docker
    .getNetwork(network)
    .inspect()
    .catch(() => undefined)) as Dockerode.NetworkInspectInfo | undefined;
  for (const container of Object.keys(info?.Containers ?? {})) {
    await docker
      .getNetwork(network)
      .disconnect({ Container: container, Force: true })
      .catch(() => undefined);
  }
}

/**
 * Gone already counts as removed. A conflict (removal in progress, volume still held by a
 * container being removed) is retried for a few seconds.
 */
async function removeWithRetry(remove: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await remove();
      return;
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isConflict(error) || attempt >= RETRIES) throw new Error(engineMessage(error));
      await sleep(RETRY_MS);
    }
  }
}
