// A cluster's local registry (KEP-1755, "Standard for communicating a local registry"; kind's
// local-registry recipe): every node's containerd resolves `localhost:<port>/...` to the registry
// container on the cluster network (a hosts.toml under containerd's config_path), and the
// `local-registry-hosting` ConfigMap in kube-public tells tools (Tilt, Skaffold...) where to push.
import type { ConfigMap } from '../../api/types/core-v1.generated.js';
import { CONFIG_MAPS } from '../../client/resources.js';
import { isAlreadyExists } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type { NodeProvider } from '../../providers/types.js';
import { ClusterError } from '../errors.js';
import { assertPortAvailable } from '../ports.js';

/** What `cluster.json` records of a cluster's registry. */
export interface RegistryRecord {
  /** The registry container's name (nodes reach it by this name). */
  name: string;
  /** Its port on 127.0.0.1, and the `localhost:<port>` name images are pushed to. */
  port: number;
  /** Shared by clusters: `tkube down` detaches it and leaves it running. */
  shared: boolean;
}

/** kind's local-registry recipe's port, which tools and docs expect. */
export const DEFAULT_REGISTRY_PORT = 5001;

/** Where the node image's containerd.toml points `config_path`. */
export const CONTAINERD_HOSTS_DIR = '/etc/containerd/certs.d';
/** The port the registry serves on inside its container. */
export const REGISTRY_SERVING_PORT = 5000;
export const REGISTRY_HOSTING_CONFIG_MAP = 'local-registry-hosting';
export const REGISTRY_HOSTING_NAMESPACE = 'kube-public';
export const REGISTRY_HELP_URL = 'https://kind.sigs.k8s.io/docs/user/local-registry/';

/** The registry container of a cluster that owns one. */
export function ownedRegistryName(cluster: string): string {
  return `${cluster}-registry`;
}

export function registryHost(registry: RegistryRecord): string {
  return `localhost:${registry.port}`;
}

/** containerd's host configuration: pulls of localhost:<port>/... go to the registry container, plain HTTP. */
export function registryHostsToml(registry: RegistryRecord): string {
  return [
    `# tkube: ${registryHost(registry)} is the local registry ${registry.name}`,
    `server = "http://${registryHost(registry)}"`,
    '',
    `[host."http://${registry.name}:${REGISTRY_SERVING_PORT}"]`,
    '  capabilities = ["pull", "resolve"]',
    '',
  ].join('\n');
}

export function registryHostsPath(registry: RegistryRecord): string {
  return `${CONTAINERD_HOSTS_DIR}/${registryHost(registry)}/hosts.toml`;
}

/** Points each node's containerd at the registry (read at each pull: no restart needed). */
export async function configureNodesForRegistry(
  provider: NodeProvider,
  nodes: readonly string[],
  registry: RegistryRecord,
): Promise<void> {
  const file = { path: registryHostsPath(registry), content: registryHostsToml(registry) };
  await Promise.all(nodes.map((node) => provider.copyFiles(node, [file])));
}

/** KEP-1755's ConfigMap, `localRegistryHosting.v1` as YAML. */
export function registryHostingConfigMap(registry: RegistryRecord): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: REGISTRY_HOSTING_CONFIG_MAP, namespace: REGISTRY_HOSTING_NAMESPACE },
    data: {
      'localRegistryHosting.v1': [
        `host: "${registryHost(registry)}"`,
        `hostFromContainerRuntime: "${registry.name}:${REGISTRY_SERVING_PORT}"`,
        `help: "${REGISTRY_HELP_URL}"`,
        '',
      ].join('\n'),
    },
  };
}

/** Creates the ConfigMap, or replaces the one a user left there. */
export async function publishRegistryHosting(client: Client, registry: RegistryRecord): Promise<void> {
  const configMaps = client.resource<ConfigMap>(CONFIG_MAPS);
  const wanted = registryHostingConfigMap(registry);
  try {
    await configMaps.create(wanted);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const current = await configMaps.get(REGISTRY_HOSTING_NAMESPACE, REGISTRY_HOSTING_CONFIG_MAP);
    await configMaps.update({ ...current, data: wanted.data });
  }
}

/** The port a new registry is published on must be free on 127.0.0.1. */
export async function assertRegistryPortAvailable(port: number): Promise<void> {
  try {
    await assertPortAvailable(port);
  } catch (error) {
    if (!(error instanceof ClusterError)) throw error;
    throw new ClusterError(
      `registry port ${port} is already in use on 127.0.0.1`,
      'choose another with --registry-port, or share a running registry with --registry-name',
    );
  }
}
