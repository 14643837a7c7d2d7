// Where a cluster lives on the host: $TKUBE_HOME/clusters/<name>/ holds its record, PKI,
// database, logs and the control plane's pid. The directory is the cluster: it exists from the
// first step of `up` until `down` removes it.

import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ComponentFlagSettings } from '../controlplane/component-flags.js';
import { ClusterError, errorCode, errorMessage } from './errors.js';
import { isDns1123Label } from './name.js';
import type { RegistryRecord } from './registry/local-registry.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** What `cluster.json` records about a cluster. */
export interface ClusterRecord {
  name: string;
  apiPort: number;
  /** The apiserver URL clients use. */
  server: string;
  createdAt: string;
  nodes: number;
  /**
   * The node containers' names once `tkube node add` or `remove` changed them; absent, the
   * nodes are `<name>-node-0` … `<name>-node-<nodes - 1>`.
   */
  nodeNames?: string[];
  /** Simulated nodes the control plane runs (`--fake-nodes`); absent when none. */
  fakeNodes?: number;
  /** tkube's version that created the cluster. */
  version: string;
  kubernetesVersion: string;
  /** The kubeconfig file `up` merged the cluster's context into, so `down` finds it again. */
  kubeconfigPath: string;
  /** The pod network node IPAM carves node CIDRs from, when not the default. */
  podSubnet?: string;
  /** `--datastore-endpoint`, when not SQLite in the state directory (the record file is the owner's alone). */
  datastoreEndpoint?: string;
  /** The config file's `controllerManager` and `metricsServer` flags, in milliseconds; absent when none. */
  componentFlags?: ComponentFlagSettings;
  /**
   * With several control planes (`up --control-planes N`): each one's apiserver port; `apiPort`
   * is then the balancer in front of them.
   */
  controlPlanePorts?: number[];
  /** The nodes' docker network, when the cluster has nodes. */
  network?: { subnet: string; gateway: string };
  /** The local registry the nodes pull `localhost:<port>/...` from (`up --registry`). */
  registry?: RegistryRecord;
}

export interface ClusterPaths {
  name: string;
  dir: string;
  recordFile: string;
  pkiDir: string;
  databaseFile: string;
  logsDir: string;
  controlPlaneLog: string;
  pidFile: string;
}

const STATE_DIRECTORY_MODE = 0o700;

/** The user's home directory as the environment gives it (HOME first, as Go's os.UserHomeDir does). */
export function homeDirectory(env: Environment): string {
  return env.HOME || homedir();
}

/** `$TKUBE_HOME`, by default `~/.tkube`. */
export function tkubeHome(env: Environment = process.env): string {
  return env.TKUBE_HOME || join(homeDirectory(env), '.tkube');
}

export function clustersDirectory(env: Environment = process.env): string {
  return join(tkubeHome(env), 'clusters');
}

export function clusterPaths(name: string, env: Environment = process.env): ClusterPaths {
  const dir = join(clustersDirectory(env), name);
  const logsDir = join(dir, 'logs');
  return {
    name,
    dir,
    recordFile: join(dir, 'cluster.json'),
    pkiDir: join(dir, 'pki'),
    databaseFile: join(dir, 'state.db'),
    logsDir,
    controlPlaneLog: join(logsDir, 'controlplane.log'),
    pidFile: join(dir, 'controlplane.pid'),
  };
}

/**
 * Creates the cluster's directory; creating it is what claims the name, so two `up`s of the
 * same name cannot both proceed.
 */
export async function claimClusterDirectory(paths: ClusterPaths): Promise<void> {
  await mkdir(clustersDirectoryOf(paths), { recursive: true, mode: STATE_DIRECTORY_MODE });
  try {
    await mkdir(paths.dir, { mode: STATE_DIRECTORY_MODE });
  } catch (error) {
    if (errorCode(error) === 'EEXIST') throw clusterExistsError(paths.name);
    throw error;
  }
  await mkdir(paths.logsDir, { mode: STATE_DIRECTORY_MODE });
}

export function clusterExistsError(name: string): ClusterError {
  return new ClusterError(
    `cluster ${JSON.stringify(name)} already exists`,
    `delete it first with "tkube down ${name}", or choose another name`,
  );
}

/** `up` of a cluster that exists but is not running: kind users expect `up` to create only. */
export function stoppedClusterError(name: string): ClusterError {
  return new ClusterError(
    `cluster ${JSON.stringify(name)} already exists and is stopped`,
    `start it with "tkube start ${name}", or delete it with "tkube down ${name}"`,
  );
}

export function unknownClusterError(name: string): ClusterError {
  return new ClusterError(
    `cluster ${JSON.stringify(name)} does not exist`,
    'list the clusters with "tkube list", or create it with "tkube up"',
  );
}

export async function clusterDirectoryExists(paths: ClusterPaths): Promise<boolean> {
  try {
    await readdir(paths.dir);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** The names of the cluster's node containers, as its record has them. */
export function recordedNodeNames(record: ClusterRecord): string[] {
  return (
    record.nodeNames ?? Array.from({ length: record.nodes }, (_, index) => `${record.name}-node-${index}`)
  );
}

export async function writeClusterRecord(paths: ClusterPaths, record: ClusterRecord): Promise<void> {
  await writeFile(paths.recordFile, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

/** The cluster's record; undefined when the cluster does not exist; a ClusterError when it is unreadable. */
export async function readClusterRecord(paths: ClusterPaths): Promise<ClusterRecord | undefined> {
  let text: string;
  try {
    text = await readFile(paths.recordFile, 'utf8');
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    if (await clusterDirectoryExists(paths)) throw brokenRecordError(paths, 'the file is missing');
    return undefined;
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw brokenRecordError(paths, errorMessage(error));
  }
  if (!isClusterRecord(record))
    throw brokenRecordError(paths, 'a required field is missing or has the wrong type');
  return record;
}

/** Like readClusterRecord, but a missing cluster is a ClusterError too. */
export async function loadClusterRecord(paths: ClusterPaths): Promise<ClusterRecord> {
  const record = await readClusterRecord(paths);
  if (record === undefined) throw unknownClusterError(paths.name);
  return record;
}

function brokenRecordError(paths: ClusterPaths, problem: string): ClusterError {
  return new ClusterError(
    `cluster ${JSON.stringify(paths.name)} is damaged: ${paths.recordFile}: ${problem}`,
    `remove it with "tkube down ${paths.name}"`,
  );
}

function isClusterRecord(value: unknown): value is ClusterRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.name === 'string' &&
    typeof record.apiPort === 'number' &&
    typeof record.server === 'string' &&
    typeof record.createdAt === 'string' &&
    typeof record.nodes === 'number' &&
    typeof record.version === 'string' &&
    typeof record.kubernetesVersion === 'string' &&
    typeof record.kubeconfigPath === 'string'
  );
}

/** Names of the clusters under $TKUBE_HOME, sorted; directories that are not cluster names are ignored. */
export async function listClusterNames(env: Environment = process.env): Promise<string[]> {
  let entries: { name: string; isDirectory(): boolean }[];
  try {
    entries = await readdir(clustersDirectory(env), { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isDirectory() && isDns1123Label(entry.name).length === 0)
    .map((entry) => entry.name)
    .sort();
}

export async function writeControlPlanePid(paths: ClusterPaths, pid: number): Promise<void> {
  await writeFile(paths.pidFile, `${pid}\n`, { mode: 0o600 });
}

/** The recorded control plane pid, or undefined when none was recorded (or the file is garbage). */
export async function readControlPlanePid(paths: ClusterPaths): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(paths.pidFile, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Forgets the control plane's pid: `tkube stop` does, so a missing pid means stopped on purpose. */
export async function removeControlPlanePid(paths: ClusterPaths): Promise<void> {
  await rm(paths.pidFile, { force: true });
}

export async function removeClusterDirectory(paths: ClusterPaths): Promise<void> {
  await rm(paths.dir, { recursive: true, force: true, maxRetries: 3 });
}

function clustersDirectoryOf(paths: ClusterPaths): string {
  return join(paths.dir, '..');
}
