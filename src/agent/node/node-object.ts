// The Node object the kubelet registers: well-known labels, addresses, node info, capacity.
import type { Node, NodeSystemInfo, Taint } from '../../api/types/core-v1.generated.js';
import { KUBERNETES_GIT_VERSION } from '../../api/version.js';
import type { NodeResources } from './capacity.js';

/** The kubelet's port, reported in status.daemonEndpoints. */
export const KUBELET_PORT = 10250;

export interface NodeIdentity {
  readonly name: string;
  /** The node container's address on the cluster network. */
  readonly internalIP: string;
  /** Labels beyond the well-known ones (roles, user labels from the cluster config). */
  readonly labels: Readonly<Record<string, string>>;
  /** `--register-with-taints`. */
  readonly taints: readonly Taint[];
  /** The pod CIDR `tkube up` planned for the node, registered as node IPAM would assign it. */
  readonly podCIDR?: string;
}

export interface NodeFacts {
  readonly resources: NodeResources;
  readonly systemInfo: NodeSystemInfo;
}

/** The labels every kubelet sets on its Node (and re-asserts at every start). */
export function wellKnownLabels(name: string, arch: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
  };
}

/** Go's GOARCH for this process's architecture (what `kubernetes.io/arch` uses). */
export function goArch(arch: string = process.arch): string {
  const names: Record<string, string> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    ppc64: 'ppc64le',
    s390x: 's390x',
  };
  return names[arch] ?? arch;
}

export function initialNode(identity: NodeIdentity, facts: NodeFacts): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: identity.name,
      labels: { ...wellKnownLabels(identity.name, facts.systemInfo.architecture), ...identity.labels },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: {
      ...(identity.podCIDR && { podCIDR: identity.podCIDR, podCIDRs: [identity.podCIDR] }),
      ...(identity.taints.length > 0 && { taints: [...identity.taints] }),
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: identity.internalIP },
        { type: 'Hostname', address: identity.name },
      ],
      capacity: facts.resources.capacity,
      allocatable: facts.resources.allocatable,
      daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
      nodeInfo: facts.systemInfo,
    },
  };
}

/** nodeInfo as the kubelet fills it; the runtime version comes from the container runtime. */
export function systemInfo(fields: {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
}): NodeSystemInfo {
  return {
    ...fields,
    architecture: goArch(),
    operatingSystem: 'linux',
    kubeletVersion: KUBERNETES_GIT_VERSION,
    // Deprecated; kubelets since 1.31 leave it empty.
    kubeProxyVersion: '',
  };
}
