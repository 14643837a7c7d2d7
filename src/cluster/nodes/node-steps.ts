// The Docker half of `tkube up`: node image, network, node containers with their agents, and the
// wait for Ready. Each function is one named progress step; `up` composes them.

import type { CertificateAuthority } from '../../pki/certificate-authority.js';
import { ensureNodeImage, type NodeImage } from '../../providers/docker/image/node-image.js';
import { DockerProvider } from '../../providers/docker/provider.js';
import { ensureRegistry, removeRegistry } from '../../providers/docker/registry/registry-container.js';
import type { ClusterNetwork, NodeProvider } from '../../providers/types.js';
import { ClusterError, errorMessage } from '../errors.js';
import { agentDirectories } from './agent-directories.js';
import {
  installAgent,
  issueClusterDnsCertificate,
  issueKubeProxyCertificate,
  issueNodeCertificate,
  issuePodNetworkCertificate,
  prepareAgentMounts,
  readAgentBundle,
} from './agent-install.js';
import { networkCandidate, type PlannedNode } from './node-plan.js';

const NETWORK_ATTEMPTS = 16;

export { dockerProvider } from './node-provider.js';

export function buildNodeImage(
  image: string | undefined,
  onProgress: (line: string) => void,
): Promise<NodeImage | { tag: string }> {
  if (image) return Promise.resolve({ tag: image });
  return ensureNodeImage({ onProgress });
}

/** The cluster network on the first free candidate subnet. */
export async function createClusterNetwork(provider: NodeProvider, cluster: string): Promise<ClusterNetwork> {
  let lastError: unknown;
  for (let attempt = 0; attempt < NETWORK_ATTEMPTS; attempt++) {
    const plan = networkCandidate(cluster, attempt);
    try {
      return await provider.ensureNetwork({ cluster, subnet: plan.subnet, gateway: plan.gateway });
    } catch (error) {
      lastError = error;
      // Another network holds the subnet ("Pool overlaps"): try the next one.
      if (!/overlap/i.test(errorMessage(error))) throw error;
    }
  }
  throw new ClusterError(`no free subnet for the cluster network: ${errorMessage(lastError)}`);
}

export interface NodeContainers {
  readonly cluster: string;
  /** The cluster's state directory: each node's agent files live under it (see agent-install.ts). */
  readonly clusterDir: string;
  readonly image: string;
  readonly nodes: readonly PlannedNode[];
}

/** Creates and starts every node container concurrently; resolves once containerd runs in each. */
export async function startNodeContainers(provider: NodeProvider, containers: NodeContainers): Promise<void> {
  await createNodeContainers(provider, containers);
  await waitForNodeRuntimes(provider, containers.nodes, containers.clusterDir);
}

/**
 * Creates and starts the node containers, each with its agent's directories mounted (still empty:
 * installAgents fills them); their entrypoints then start containerd.
 */
export async function createNodeContainers(
  provider: NodeProvider,
  containers: NodeContainers,
): Promise<void> {
  await Promise.all(
    containers.nodes.map(async (node) => {
      const agentMounts = await prepareAgentMounts(containers.clusterDir, node.name);
      await provider.createNode({
        cluster: containers.cluster,
        index: node.index,
        name: node.name,
        role: node.role,
        image: containers.image,
        ip: node.ip,
        portMappings: node.portMappings,
        mounts: [...node.mounts, ...agentMounts],
      });
    }),
  );
}

/**
 * Waits for containerd in each node (the entrypoint starts an installed agent after it), its ready
 * marker watched in the node's run directory on the host (see prepareAgentMounts).
 */
export async function waitForNodeRuntimes(
  provider: NodeProvider,
  nodes: readonly PlannedNode[],
  clusterDir: string,
): Promise<void> {
  await Promise.all(
    nodes.map((node) =>
      provider.waitForContainerd(node.name, { runDirOnHost: agentDirectories(clusterDir, node.name).run }),
    ),
  );
}

/** Creates (or reuses a shared) local registry on the cluster network; see cluster/registry. */
export async function startLocalRegistry(
  provider: NodeProvider,
  spec: { name: string; port?: number; defaultPort: number; owner?: string; network: string },
): Promise<{ name: string; port: number; created: boolean }> {
  return ensureRegistry(dockerOf(provider), spec);
}

export function removeLocalRegistry(provider: NodeProvider, name: string): Promise<void> {
  return removeRegistry(dockerOf(provider), name);
}

function dockerOf(provider: NodeProvider): DockerProvider['docker'] {
  if (!(provider instanceof DockerProvider))
    throw new ClusterError('the local registry needs the Docker provider');
  return provider.docker;
}

export interface AgentInstallation {
  /** The cluster's state directory, as the node containers were created with. */
  readonly clusterDir: string;
  readonly nodes: readonly PlannedNode[];
  /** The apiserver as nodes reach it. */
  readonly server: string;
  readonly ca: CertificateAuthority;
  readonly podSubnet: string;
}

/** Issues each node's certificates and installs its agent (the nodes' entrypoints start them). */
export async function installAgents(installation: AgentInstallation): Promise<void> {
  const bundle = readAgentBundle();
  const [network, dns, proxy, ...credentials] = await Promise.all([
    issuePodNetworkCertificate(installation.ca),
    issueClusterDnsCertificate(installation.ca),
    issueKubeProxyCertificate(installation.ca),
    ...installation.nodes.map((node) => issueNodeCertificate(installation.ca, node.name)),
  ]);
  await Promise.all(
    installation.nodes.map((node, i) =>
      installAgent(installation.clusterDir, {
        node,
        server: installation.server,
        ca: installation.ca,
        credentials: credentials[i]!,
        network: network!,
        dns: dns!,
        proxy: proxy!,
        bundle,
        podSubnet: installation.podSubnet,
      }),
    ),
  );
}
