// kind's cluster config (`kind.x-k8s.io/v1alpha4` `Cluster`, sigs.k8s.io/kind/pkg/apis/config/
// v1alpha4) read as it is: each field tkube honours becomes its tkube.dev/v1alpha1 counterpart,
// and each it does not gives one warning line naming the field, so a kind user's file works
// unchanged and says what it lost. Unknown fields stay errors, as in kind.
export const KIND_API_VERSION = 'kind.x-k8s.io/v1alpha4';

type Json = Record<string, unknown>;

export interface KindTranslation {
  /** The document in tkube.dev/v1alpha1 form, for the tkube validator. */
  document: Json;
  warnings: string[];
}

/** kind's fields tkube has no counterpart for: path → why. */
const CLUSTER_IGNORED: Record<string, string> = {
  featureGates: 'tkube serves Kubernetes 1.33 with its default feature gates',
  runtimeConfig: 'tkube serves its built-in API versions',
  kubeadmConfigPatches: 'tkube runs no kubeadm',
  kubeadmConfigPatchesJSON6902: 'tkube runs no kubeadm',
  containerdConfigPatches: "tkube's nodes use their own containerd config",
  containerdConfigPatchesJSON6902: "tkube's nodes use their own containerd config",
};
const NODE_IGNORED: Record<string, string> = {
  image: "tkube's nodes run its own node image (see --image)",
  kubeadmConfigPatches: 'tkube runs no kubeadm',
  kubeadmConfigPatchesJSON6902: 'tkube runs no kubeadm',
};
const NETWORKING_KEPT = ['podSubnet', 'serviceSubnet', 'apiServerPort'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isKindConfig(document: unknown): boolean {
  return isObject(document) && document.apiVersion === KIND_API_VERSION;
}

/** kind's document → tkube's; what is not honoured is dropped with a warning, the rest validated later. */
export function fromKindConfig(document: Json): KindTranslation {
  const warnings: string[] = [];
  const warn = (path: string, why: string) => warnings.push(`${path}: not honoured: ${why}`);
  const out: Json = { apiVersion: 'tkube.dev/v1alpha1', kind: document.kind };
  for (const [key, value] of Object.entries(document)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key in CLUSTER_IGNORED) warn(key, CLUSTER_IGNORED[key]!);
    else if (key === 'nodes') out.nodes = Array.isArray(value) ? nodesOf(value, warn) : value;
    else if (key === 'networking') out.networking = isObject(value) ? networkingOf(value, warn) : value;
    else out[key] = value; // name, and unknown fields for the validator to report
  }
  return { document: out, warnings };
}

function nodesOf(nodes: unknown[], warn: (path: string, why: string) => void): unknown[] {
  let controlPlanes = 0;
  return nodes.map((node, i) => {
    if (!isObject(node)) return node;
    const path = `nodes[${i}]`;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key in NODE_IGNORED) warn(`${path}.${key}`, NODE_IGNORED[key]!);
      else if (key === 'extraMounts' && Array.isArray(value)) out.extraMounts = mountsOf(value, path, warn);
      else out[key] = value; // honoured, or unknown for the validator to report
    }
    // kind's HA clusters have several control-plane nodes; tkube has one control plane.
    if (out.role === 'control-plane' && ++controlPlanes > 1) {
      warn(`${path}.role`, 'tkube runs one control plane; this node joins as a worker');
      out.role = 'worker';
    }
    return out;
  });
}

function mountsOf(mounts: unknown[], path: string, warn: (path: string, why: string) => void): unknown[] {
  return mounts.map((mount, i) => {
    if (!isObject(mount) || mount.selinuxRelabel === undefined) return mount;
    const { selinuxRelabel: _, ...rest } = mount;
    warn(`${path}.extraMounts[${i}].selinuxRelabel`, 'mounts are not relabelled for SELinux');
    return rest;
  });
}

function networkingOf(networking: Json, warn: (path: string, why: string) => void): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(networking)) {
    const path = `networking.${key}`;
    if (NETWORKING_KEPT.includes(key)) out[key] = value;
    else if (key === 'ipFamily') {
      if (value !== 'ipv4') warn(path, 'tkube clusters are IPv4 only');
    } else if (key === 'apiServerAddress') {
      if (value !== '127.0.0.1') warn(path, 'the API server listens on 127.0.0.1');
    } else if (key === 'kubeProxyMode') {
      if (value !== 'iptables') warn(path, "tkube's kube-proxy runs in iptables mode");
    } else if (key === 'disableDefaultCNI') {
      if (value === true) warn(path, "tkube's pod network is built in and cannot be replaced");
    } else if (key === 'dnsSearch') warn(path, "nodes keep Docker's DNS settings");
    else out[key] = value; // unknown: the validator reports it
  }
  return out;
}
