// The local registry's container (kind's "local registry" recipe, k3d's `registry create`):
// published on 127.0.0.1:<port> for `docker push localhost:<port>/...`, and attached to each
// cluster network that uses it so the nodes' containerd pulls from it by container name.
// A registry owned by one cluster carries that cluster's label, so removing the cluster's
// resources removes it; a shared one carries none and outlives every cluster.
import { get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type Dockerode from 'dockerode';
import { DockerProviderError, engineMessage, engineStatusCode, isNotFound } from '../errors.js';
import { CLUSTER_LABEL } from '../names.js';
import { ensureRegistryImage, REGISTRY_CONTAINER_PORT } from './registry-image.js';

/** Marks a tkube registry container; the value is its host port. */
export const REGISTRY_LABEL = 'dev.tkube.registry';
const READY_TIMEOUT_MS = 15_000;
const ATTEMPT_TIMEOUT_MS = 1_000;

export interface RegistrySpec {
  /** The container's name (the nodes reach the registry by it). */
  name: string;
  /** The host port; for an existing registry, must be its own when given. */
  port?: number;
  /** The host port of a new registry when `port` is not given. */
  defaultPort: number;
  /** The cluster owning the registry (removed with it); absent: a shared registry. */
  owner?: string;
  /** The docker network of the cluster that uses it. */
  network: string;
}

export interface LocalRegistry {
  name: string;
  port: number;
  /** Whether this call created the container (a shared registry may have existed). */
  created: boolean;
}

/** Creates (or reuses) the registry, starts it, attaches it to the network; resolves once it answers. */
export async function ensureRegistry(docker: Dockerode, spec: RegistrySpec): Promise<LocalRegistry> {
  const existing = await inspect(docker, spec.name);
  let registry: LocalRegistry;
  if (existing) {
    const label = existing.Config.Labels?.[REGISTRY_LABEL];
    if (label === undefined) {
      throw new DockerProviderError(`container ${spec.name} exists and is not a tkube registry`);
    }
    const owner = existing.Config.Labels?.[CLUSTER_LABEL];
    if (owner !== undefined && owner !== spec.owner) {
      throw new DockerProviderError(
        `registry ${spec.name} belongs to cluster "${owner}" and goes with it; a registry shared by clusters is made with --registry-name`,
      );
    }
    const port = Number(label);
    if (spec.port !== undefined && spec.port !== port) {
      throw new DockerProviderError(
        `registry ${spec.name} exists on port ${port}, not ${spec.port}; leave out the port to use it`,
      );
    }
    registry = { name: spec.name, port, created: false };
    await startRegistry(docker, registry);
  } else {
    const port = spec.port ?? spec.defaultPort;
    const image = await ensureRegistryImage(docker);
    const binding = `${REGISTRY_CONTAINER_PORT}/tcp`;
    await docker.createContainer({
      name: spec.name,
      Image: image,
      Labels: {
        [REGISTRY_LABEL]: String(port),
        ...(spec.owner !== undefined && { [CLUSTER_LABEL]: spec.owner }),
      },
      ExposedPorts: { [binding]: {} },
      HostConfig: {
        PortBindings: { [binding]: [{ HostIp: '127.0.0.1', HostPort: String(port) }] },
        // Back after a dockerd restart, as the nodes are.
        RestartPolicy: { Name: 'unless-stopped' },
        // Docker's default bridge holds the published port; cluster networks come and go.
        NetworkMode: 'bridge',
      },
    });
    registry = { name: spec.name, port, created: true };
    try {
      await startRegistry(docker, registry);
    } catch (error) {
      await docker
        .getContainer(spec.name)
        .remove({ force: true, v: true })
        .catch(() => undefined);
      throw error;
    }
  }
  await connect(docker, spec.name, spec.network);
  await waitUntilServing(registry);
  return registry;
}

/** Removes a registry container and its storage; gone already is fine. */
export async function removeRegistry(docker: Dockerode, name: string): Promise<void> {
  try {
    await docker.getContainer(name).remove({ force: true, v: true });
  } catch (error) {
    if (!isNotFound(error))
      throw new DockerProviderError(`cannot remove registry ${name}: ${engineMessage(error)}`);
  }
}

async function inspect(docker: Dockerode, name: string): Promise<Dockerode.ContainerInspectInfo | undefined> {
  try {
    return await docker.getContainer(name).inspect();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new DockerProviderError(`cannot inspect container ${name}: ${engineMessage(error)}`);
  }
}

async function startRegistry(docker: Dockerode, registry: LocalRegistry): Promise<void> {
  try {
    await docker.getContainer(registry.name).start();
  } catch (error) {
    if (engineStatusCode(error) === 304) return; // already running
    const message = engineMessage(error);
    if (/port is already allocated|address already in use/i.test(message)) {
      throw new DockerProviderError(`registry port ${registry.port} is already in use on 127.0.0.1`);
    }
    throw new DockerProviderError(`cannot start registry ${registry.name}: ${message}`);
  }
}

async function connect(docker: Dockerode, name: string, network: string): Promise<void> {
  try {
    await docker.getNetwork(network).connect({ Container: name });
  } catch (error) {
    // 403: already attached (it was created on this network, or reused).
    if (engineStatusCode(error) === 403 && /already exists/i.test(engineMessage(error))) return;
    throw new DockerProviderError(`cannot attach registry ${name} to ${network}: ${engineMessage(error)}`);
  }
}

/** The registry API's base endpoint answers 200 once the registry serves. */
async function waitUntilServing(registry: LocalRegistry): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    last = await apiStatus(registry.port);
    if (last === 'HTTP 200') return;
    await sleep(200);
  }
  throw new DockerProviderError(
    `registry ${registry.name} did not answer on 127.0.0.1:${registry.port} within ${READY_TIMEOUT_MS / 1000} s (${last})`,
  );
}

/**
 * GET /v2/ with a deadline of its own: docker's port proxy accepts a connection before the
 * registry listens and may hold it without an answer.
 */
function apiStatus(port: number): Promise<string> {
  return new Promise((resolve) => {
    const request = get(
      { host: '127.0.0.1', port, path: '/v2/', timeout: ATTEMPT_TIMEOUT_MS },
      (response) => {
        response.resume();
        resolve(`HTTP ${response.statusCode}`);
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer')));
    request.on('error', (error) => resolve(error.message));
  });
}
