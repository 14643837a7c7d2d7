// kind's cluster config (`kind.x-k8s.io/v1alpha4` `Cluster`, sigs.k8s.io/kind/pkg/apis/config/
// v1alpha4) read as it is: each field tkube honours becomes its tkube.dev/v1alpha1 counterpart,
// and each it does not gives one warning line naming the field, so a kind user's file works
// unchanged and says what it lost. Unknown fields stay errors, as in kind. Of the kubeadm config
// patches, a ClusterConfiguration's `controllerManager.extraArgs` carries over the flags tkube takes
// (kubeadm v1beta3's map or v1beta4's list of {name, value}); every other part is warned about.
import { parseAllDocuments } from 'yaml';
import {
  COMPONENT_FLAGS,
  componentFlagNames,
  parseComponentFlag,
} from '../../controlplane/component-flags.js';

export const KIND_API_VERSION = 'kind.x-k8s.io/v1alpha4';

type Json = Record<string, unknown>;

export interface KindTranslation {
  /** The document in tkube.dev/v1alpha1 form, for the tkube validator. */
  document: Json;
  warnings: string[];
  /** Field errors at kind's paths, which tkube's names would not show the user. */
  problems: { path: string; message: string }[];
}

/** kind's fields tkube has no counterpart for: path → why. */
const CLUSTER_IGNORED: Record<string, string> = {
  featureGates: 'tkube serves Kubernetes 1.33 with its default feature gates',
  runtimeConfig: 'tkube serves its built-in API versions',
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
/** tkube's own sections, which a kind document does not have. */
const TKUBE_ONLY = ['controllerManager', 'metricsServer'];
const NO_KUBEADM = 'tkube runs no kubeadm';

type Warn = (path: string, why: string) => void;
type Problem = (path: string, message: string) => void;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isKindConfig(document: unknown): boolean {
  return isObject(document) && document.apiVersion === KIND_API_VERSION;
}

/** kind's document → tkube's; what is not honoured is dropped with a warning, the rest validated later. */
export function fromKindConfig(document: Json): KindTranslation {
  const warnings: string[] = [];
  const problems: KindTranslation['problems'] = [];
  const warn: Warn = (path, why) => warnings.push(`${path}: not honoured: ${why}`);
  const problem: Problem = (path, message) => problems.push({ path, message });
  const out: Json = { apiVersion: 'tkube.dev/v1alpha1', kind: document.kind };
  for (const [key, value] of Object.entries(document)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key in CLUSTER_IGNORED) warn(key, CLUSTER_IGNORED[key]!);
    else if (TKUBE_ONLY.includes(key)) problem(key, 'unknown field');
    else if (key === 'kubeadmConfigPatches') {
      const extraArgs = kubeadmPatchesOf(value, warn, problem);
      if (Object.keys(extraArgs).length > 0) out.controllerManager = { extraArgs };
    } else if (key === 'nodes') out.nodes = Array.isArray(value) ? nodesOf(value, warn) : value;
    else if (key === 'networking') out.networking = isObject(value) ? networkingOf(value, warn) : value;
    else out[key] = value; // name, and unknown fields for the validator to report
  }
  return { document: out, warnings, problems };
}

/**
 * kind's cluster-wide kubeadm patches (YAML strings, each possibly several documents, as kind
 * splits them): the controller-manager flags tkube takes, by name (a later patch wins, as kind
 * applies them in order). A patch with several documents names each `kubeadmConfigPatches[i][j]`.
 */
function kubeadmPatchesOf(patches: unknown, warn: Warn, problem: Problem): Record<string, string> {
  const extraArgs: Record<string, string> = {};
  if (!Array.isArray(patches)) {
    problem('kubeadmConfigPatches', 'must be a list of YAML strings');
    return extraArgs;
  }
  patches.forEach((patch, i) => {
    const path = `kubeadmConfigPatches[${i}]`;
    if (typeof patch !== 'string') {
      problem(path, 'must be a YAML string');
      return;
    }
    const documents = parseAllDocuments(patch);
    const at = (j: number) => (documents.length > 1 ? `${path}[${j}]` : path);
    documents.forEach((yaml, j) => {
      const error = yaml.errors[0];
      if (error) {
        // The first line, without the excerpt of the source it introduces.
        problem(at(j), `not YAML: ${error.message.split('\n')[0]?.replace(/:$/, '')}`);
        return;
      }
      const value: unknown = yaml.toJS();
      if (value === null || value === undefined) return;
      if (!isObject(value)) problem(at(j), 'must be a YAML object');
      else if (value.kind !== 'ClusterConfiguration')
        warn(
          at(j),
          typeof value.kind === 'string'
            ? `${NO_KUBEADM} and has no ${value.kind}`
            : `${NO_KUBEADM}, and the patch names no kind`,
        );
      else clusterConfigurationOf(value, at(j), extraArgs, warn, problem);
    });
  });
  return extraArgs;
}

/** A ClusterConfiguration patch: its controller-manager flags into `extraArgs`, the rest warned about. */
function clusterConfigurationOf(
  patch: Json,
  path: string,
  extraArgs: Record<string, string>,
  warn: Warn,
  problem: Problem,
): void {
  for (const [key, section] of Object.entries(patch)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key !== 'controllerManager' || !isObject(section)) {
      warn(`${path}.${key}`, NO_KUBEADM);
      continue;
    }
    for (const [field, args] of Object.entries(section)) {
      const at = `${path}.controllerManager.${field}`;
      if (field !== 'extraArgs') warn(at, NO_KUBEADM);
      else if (Array.isArray(args)) {
        // kubeadm v1beta4: [{name, value}], in order.
        args.forEach((arg, k) => {
          if (isObject(arg) && typeof arg.name === 'string')
            flagOf(arg.name, arg.value, at, extraArgs, warn, problem);
          else problem(`${at}[${k}]`, 'must be {name, value}');
        });
      } else if (isObject(args)) {
        // kubeadm v1beta3: a map of flag names to values.
        for (const [name, value] of Object.entries(args)) flagOf(name, value, at, extraArgs, warn, problem);
      } else problem(at, 'must be a map of flag names to values, or a list of {name, value}');
    }
  }
}

/** One controller-manager flag of a patch: kept when tkube takes it and its value is good. */
function flagOf(
  name: string,
  value: unknown,
  path: string,
  extraArgs: Record<string, string>,
  warn: Warn,
  problem: Problem,
): void {
  const at = `${path}.${name}`;
  const flag = COMPONENT_FLAGS[name];
  if (flag?.component !== 'controllerManager') {
    warn(at, `tkube's controller manager takes only ${componentFlagNames('controllerManager').join(', ')}`);
    return;
  }
  if (typeof value !== 'string') {
    problem(at, 'must be a string');
    return;
  }
  const parsed = parseComponentFlag(flag, value);
  if ('error' in parsed) problem(at, parsed.error);
  else extraArgs[name] = value;
}

function nodesOf(nodes: unknown[], warn: Warn): unknown[] {
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

function mountsOf(mounts: unknown[], path: string, warn: Warn): unknown[] {
  return mounts.map((mount, i) => {
    if (!isObject(mount) || mount.selinuxRelabel === undefined) return mount;
    const { selinuxRelabel: _, ...rest } = mount;
    warn(`${path}.extraMounts[${i}].selinuxRelabel`, 'mounts are not relabelled for SELinux');
    return rest;
  });
}

function networkingOf(networking: Json, warn: Warn): Json {
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
