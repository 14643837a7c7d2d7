// The cluster configuration file (`tkube up --config FILE`): `tkube.dev/v1alpha1` `Cluster`,
// close to kind's. Parsed from YAML or JSON and validated field by field; every problem is
// reported with its path, as Kubernetes reports field errors. Schema: docs/cluster-config.schema.json.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { parseIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import {
  COMPONENT_FLAGS,
  type ComponentFlag,
  type ComponentFlagSettings,
  componentFlagNames,
  parseComponentFlag,
} from '../../controlplane/component-flags.js';
import { ClusterError } from '../errors.js';
import { fromKindConfig, isKindConfig, KIND_API_VERSION } from './kind-config.js';

export const CONFIG_API_VERSION = 'tkube.dev/v1alpha1';
export const CONFIG_KIND = 'Cluster';

export interface PortMappingConfig {
  containerPort: number;
  hostPort?: number;
  listenAddress?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

export interface MountConfig {
  hostPath: string;
  containerPath: string;
  readOnly?: boolean;
  propagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}

export interface NodeConfig {
  role: 'control-plane' | 'worker';
  labels: Record<string, string>;
  extraPortMappings: PortMappingConfig[];
  extraMounts: MountConfig[];
}

export interface NetworkingConfig {
  podSubnet: string;
  serviceSubnet: string;
  apiServerPort?: number;
}

/** A local registry for the nodes (`up --registry`); `name` makes it shared by clusters. */
export interface RegistryConfig {
  name?: string;
  port?: number;
}

export interface ClusterConfig {
  name?: string;
  nodes: NodeConfig[];
  networking: NetworkingConfig;
  registry?: RegistryConfig;
  /** A kind config's fields tkube does not honour, one line each (absent when none). */
  warnings?: string[];
  /** Where the state lives (`--datastore-endpoint` wins). */
  datastore?: { endpoint: string };
  /** `controllerManager.extraArgs` and `metricsServer.extraArgs`, in milliseconds (absent when none). */
  componentFlags?: ComponentFlagSettings;
}

export const DEFAULT_NETWORKING: NetworkingConfig = {
  podSubnet: '10.244.0.0/16',
  serviceSubnet: '10.96.0.0/16',
};

type Json = Record<string, unknown>;

class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: Json, allowed: readonly string[], path: string, problems: Problems): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.add(path ? `${path}.${key}` : key, 'unknown field');
  }
}

function port(value: unknown, path: string, problems: Problems, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < (allowZero ? 0 : 1) || (value as number) > 65535) {
    problems.add(path, `must be a port number from ${allowZero ? 0 : 1} to 65535`);
    return undefined;
  }
  return value as number;
}

function labelsOf(value: unknown, path: string, problems: Problems): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    problems.add(path, 'must be a map of strings');
    return {};
  }
  const labels: Record<string, string> = {};
  for (const [key, label] of Object.entries(value)) {
    // Kubernetes' label rules: an optional DNS-subdomain prefix, a name of at most 63 characters.
    const [prefix, name] = key.includes('/') ? key.split('/', 2) : [undefined, key];
    if (
      !/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/.test(name ?? '') ||
      (prefix !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(prefix))
    ) {
      problems.add(`${path}.${key}`, 'not a valid label key');
      continue;
    }
    if (typeof label !== 'string' || !/^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/.test(label)) {
      problems.add(
        `${path}.${key}`,
        'label values are strings of at most 63 characters: letters, digits, "-", "_", "."',
      );
      continue;
    }
    labels[key] = label;
  }
  return labels;
}

function nodeOf(value: unknown, path: string, problems: Problems): NodeConfig | undefined {
  if (!isObject(value)) {
    problems.add(path, 'must be an object');
    return undefined;
  }
  checkKeys(value, ['role', 'labels', 'extraPortMappings', 'extraMounts'], path, problems);
  const role = value.role ?? 'worker';
  if (role !== 'control-plane' && role !== 'worker') {
    problems.add(`${path}.role`, 'must be "control-plane" or "worker"');
  }
  const mappings: PortMappingConfig[] = [];
  const rawMappings = value.extraPortMappings ?? [];
  if (!Array.isArray(rawMappings)) problems.add(`${path}.extraPortMappings`, 'must be a list');
  else
    rawMappings.forEach((raw, i) => {
      const at = `${path}.extraPortMappings[${i}]`;
      if (!isObject(raw)) {
        problems.add(at, 'must be an object');
        return;
      }
      checkKeys(raw, ['containerPort', 'hostPort', 'listenAddress', 'protocol'], at, problems);
      const containerPort = port(raw.containerPort, `${at}.containerPort`, problems);
      if (raw.containerPort === undefined) problems.add(`${at}.containerPort`, 'required');
      const hostPort = port(raw.hostPort, `${at}.hostPort`, problems, true);
      if (
        raw.listenAddress !== undefined &&
        (typeof raw.listenAddress !== 'string' || parseIpv4(raw.listenAddress) === undefined)
      ) {
        problems.add(`${at}.listenAddress`, 'must be an IPv4 address');
      }
      if (raw.protocol !== undefined && !['TCP', 'UDP', 'SCTP'].includes(raw.protocol as string)) {
        problems.add(`${at}.protocol`, 'must be TCP, UDP or SCTP');
      }
      if (containerPort !== undefined) {
        mappings.push({
          containerPort,
          ...(hostPort !== undefined ? { hostPort } : {}),
          ...(typeof raw.listenAddress === 'string' ? { listenAddress: raw.listenAddress } : {}),
          ...(raw.protocol !== undefined ? { protocol: raw.protocol as PortMappingConfig['protocol'] } : {}),
        });
      }
    });
  const mounts: MountConfig[] = [];
  const rawMounts = value.extraMounts ?? [];
  if (!Array.isArray(rawMounts)) problems.add(`${path}.extraMounts`, 'must be a list');
  else
    rawMounts.forEach((raw, i) => {
      const at = `${path}.extraMounts[${i}]`;
      if (!isObject(raw)) {
        problems.add(at, 'must be an object');
        return;
      }
      checkKeys(raw, ['hostPath', 'containerPath', 'readOnly', 'propagation'], at, problems);
      for (const field of ['hostPath', 'containerPath'] as const) {
        if (typeof raw[field] !== 'string' || !(raw[field] as string).startsWith('/')) {
          problems.add(`${at}.${field}`, 'must be an absolute path');
        }
      }
      if (raw.readOnly !== undefined && typeof raw.readOnly !== 'boolean')
        problems.add(`${at}.readOnly`, 'must be true or false');
      if (
        raw.propagation !== undefined &&
        !['None', 'HostToContainer', 'Bidirectional'].includes(raw.propagation as string)
      ) {
        problems.add(`${at}.propagation`, 'must be None, HostToContainer or Bidirectional');
      }
      if (typeof raw.hostPath === 'string' && typeof raw.containerPath === 'string') {
        mounts.push({
          hostPath: raw.hostPath,
          containerPath: raw.containerPath,
          ...(raw.readOnly === true ? { readOnly: true } : {}),
          ...(raw.propagation !== undefined
            ? { propagation: raw.propagation as MountConfig['propagation'] }
            : {}),
        });
      }
    });
  return {
    role: role === 'control-plane' ? 'control-plane' : 'worker',
    labels: labelsOf(value.labels, `${path}.labels`, problems),
    extraPortMappings: mappings,
    extraMounts: mounts,
  };
}

function subnet(
  value: unknown,
  fallback: string,
  path: string,
  problems: Problems,
  minBits: number,
  maxBits: number,
): string {
  if (value === undefined) return fallback;
  const cidr = typeof value === 'string' ? parseIpv4Cidr(value) : undefined;
  if (!cidr || `${value}`.split('/')[0] !== formatBase(cidr.base)) {
    problems.add(path, 'must be an IPv4 CIDR with its host bits zero, e.g. 10.244.0.0/16');
    return fallback;
  }
  if (cidr.prefixLength < minBits || cidr.prefixLength > maxBits) {
    problems.add(path, `the prefix length must be from /${minBits} to /${maxBits}`);
  }
  return value as string;
}

/** The service network is fixed until the apiserver's allocator takes a range. */
function serviceSubnet(value: unknown, problems: Problems): string {
  const fallback = DEFAULT_NETWORKING.serviceSubnet;
  const given = subnet(value, fallback, 'networking.serviceSubnet', problems, 12, 24);
  if (given !== fallback) problems.add('networking.serviceSubnet', `only ${fallback} is supported so far`);
  return fallback;
}

function formatBase(base: number): string {
  return [base >>> 24, (base >>> 16) & 255, (base >>> 8) & 255, base & 255].join('.');
}

/** Docker's container name rule: the shared registry is a container of that name. */
const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

function registryOf(value: unknown, problems: Problems): RegistryConfig | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    problems.add('registry', 'must be an object (e.g. {} for a registry on port 5001)');
    return undefined;
  }
  checkKeys(value, ['name', 'port'], 'registry', problems);
  if (value.name !== undefined && (typeof value.name !== 'string' || !CONTAINER_NAME.test(value.name))) {
    problems.add('registry.name', 'must be a container name: letters, digits, "_", "." and "-"');
  }
  const registryPort = port(value.port, 'registry.port', problems);
  return {
    ...(typeof value.name === 'string' && { name: value.name }),
    ...(registryPort !== undefined && { port: registryPort }),
  };
}

/**
 * `controllerManager` or `metricsServer`: `extraArgs`, a map of upstream flag names to values, as
 * kubeadm's ClusterConfiguration takes them; only the flags in COMPONENT_FLAGS.
 */
function extraArgsOf(
  value: unknown,
  component: ComponentFlag['component'],
  settings: Partial<Record<keyof ComponentFlagSettings, number>>,
  problems: Problems,
): void {
  if (value === undefined) return;
  if (!isObject(value)) {
    problems.add(component, 'must be an object');
    return;
  }
  checkKeys(value, ['extraArgs'], component, problems);
  const args = value.extraArgs ?? {};
  const path = `${component}.extraArgs`;
  if (!isObject(args)) {
    problems.add(path, 'must be a map of flag names to values');
    return;
  }
  const supported = componentFlagNames(component);
  for (const [name, text] of Object.entries(args)) {
    const flag = COMPONENT_FLAGS[name];
    if (flag?.component !== component) {
      problems.add(`${path}.${name}`, `not a supported flag; supported: ${supported.join(', ')}`);
      continue;
    }
    if (typeof text !== 'string') {
      problems.add(`${path}.${name}`, 'must be a string, e.g. "15s"');
      continue;
    }
    const parsed = parseComponentFlag(flag, text);
    if ('error' in parsed) problems.add(`${path}.${name}`, parsed.error);
    else settings[flag.setting] = parsed.ms;
  }
}

/** Validates a parsed document; throws one ClusterError listing every problem. */
export function clusterConfigFrom(given: unknown, source: string): ClusterConfig {
  const problems = new Problems();
  const kind = isKindConfig(given) ? fromKindConfig(given as Json) : undefined;
  const document = kind ? kind.document : given;
  for (const { path, message } of kind?.problems ?? []) problems.add(path, message);
  if (!isObject(document))
    throw new ClusterError(
      `${source}: not a ${CONFIG_KIND} object`,
      `start it with "apiVersion: ${CONFIG_API_VERSION}" and "kind: ${CONFIG_KIND}"`,
    );
  checkKeys(
    document,
    [
      'apiVersion',
      'kind',
      'name',
      'nodes',
      'networking',
      'registry',
      'datastore',
      'controllerManager',
      'metricsServer',
    ],
    '',
    problems,
  );
  if (document.apiVersion !== CONFIG_API_VERSION)
    problems.add('apiVersion', `must be ${CONFIG_API_VERSION} (or kind's ${KIND_API_VERSION})`);
  if (document.kind !== CONFIG_KIND) problems.add('kind', `must be ${CONFIG_KIND}`);
  if (document.name !== undefined && typeof document.name !== 'string')
    problems.add('name', 'must be a string');
  const nodes: NodeConfig[] = [];
  const rawNodes = document.nodes ?? [{ role: 'control-plane' }];
  if (!Array.isArray(rawNodes)) problems.add('nodes', 'must be a list');
  else
    rawNodes.forEach((raw, i) => {
      const node = nodeOf(raw, `nodes[${i}]`, problems);
      if (node) nodes.push(node);
    });
  if (nodes.filter((node) => node.role === 'control-plane').length > 1) {
    problems.add('nodes', 'at most one node can have the control-plane role');
  }
  const rawNetworking = document.networking ?? {};
  let networking = DEFAULT_NETWORKING;
  if (!isObject(rawNetworking)) problems.add('networking', 'must be an object');
  else {
    checkKeys(rawNetworking, ['podSubnet', 'serviceSubnet', 'apiServerPort'], 'networking', problems);
    const apiServerPort = port(rawNetworking.apiServerPort, 'networking.apiServerPort', problems);
    networking = {
      // Each node gets a /24 of the pod subnet; the service subnet holds the ClusterIPs.
      podSubnet: subnet(
        rawNetworking.podSubnet,
        DEFAULT_NETWORKING.podSubnet,
        'networking.podSubnet',
        problems,
        8,
        23,
      ),
      serviceSubnet: serviceSubnet(rawNetworking.serviceSubnet, problems),
      ...(apiServerPort !== undefined ? { apiServerPort } : {}),
    };
  }
  const registry = registryOf(document.registry, problems);
  let datastore: ClusterConfig['datastore'];
  if (document.datastore !== undefined) {
    if (!isObject(document.datastore)) problems.add('datastore', 'must be an object');
    else {
      checkKeys(document.datastore, ['endpoint'], 'datastore', problems);
      if (typeof document.datastore.endpoint !== 'string')
        problems.add('datastore.endpoint', 'must be a string');
      else datastore = { endpoint: document.datastore.endpoint };
    }
  }
  const componentFlags: Partial<Record<keyof ComponentFlagSettings, number>> = {};
  extraArgsOf(document.controllerManager, 'controllerManager', componentFlags, problems);
  extraArgsOf(document.metricsServer, 'metricsServer', componentFlags, problems);
  if (problems.list.length > 0) {
    throw new ClusterError(
      `invalid cluster config ${source}: ${problems.list.join('; ')}`,
      'see docs/cluster-config.schema.json',
    );
  }
  return {
    ...(typeof document.name === 'string' ? { name: document.name } : {}),
    nodes,
    networking,
    ...(registry && { registry }),
    ...(kind && kind.warnings.length > 0 && { warnings: kind.warnings }),
    ...(datastore && { datastore }),
    ...(Object.keys(componentFlags).length > 0 && { componentFlags }),
  };
}

export async function readClusterConfig(path: string): Promise<ClusterConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ClusterError(`cannot read the cluster config ${path}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new ClusterError(
      `cannot parse the cluster config ${path}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  return clusterConfigFrom(document, path);
}
