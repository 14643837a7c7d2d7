// The control plane runs as a detached child of the same program (`tkube controlplane`), so it
// outlives the `tkube up` that started it. Its pid is recorded in the state directory; before
// signalling a recorded pid, tkube checks it still belongs to this cluster's control plane.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isSea } from 'node:sea';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type ComponentFlagSettings, componentFlagArgs } from '../controlplane/component-flags.js';
import { RUNTIME_ARGV0 } from '../executable/payload.js';
import { deferDefaultTrust } from '../pki/deferred-default-trust.js';
import { errorCode } from './errors.js';
import type { ClusterPaths } from './state.js';

/** The program and leading arguments that start a control plane; tkube's flags follow them. */
export interface ControlPlaneCommand {
  file: string;
  args: string[];
  /** argv[0], when it must differ from `file` (the single executable runs as `node`). */
  argv0?: string;
}

export interface ControlPlaneExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the program could not be started at all. */
  error?: Error;
}

export interface StartedControlPlane {
  pid: number;
  /** Settles when the process ends (only observed while this process lives). */
  exited: Promise<ControlPlaneExit>;
  child: ChildProcess;
}

export type StopResult = 'not-running' | 'stopped' | 'killed';

const DEFAULT_GRACE_PERIOD_MS = 10_000;
const EXIT_POLL_INTERVAL_MS = 50;

/**
 * V8 flags of the control plane process. A 32 MiB young generation (Node's default is 16) halves
 * the scavenges that every request's short-lived JSON causes: measured 10-15 % more creates/s
 * and 10 % less CPU per create (bench:api); 64 MiB gained nothing more. `--expose-gc` for the one
 * collection once start-up has settled (controlplane/settled-gc.ts) and the one after a big
 * object's write (api/heap-release.ts).
 */
export const CONTROL_PLANE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32', '--expose-gc'];

/**
 * glibc malloc settings of the control plane process (variables it reads at start; the user's own
 * values win). Allocations of 64 KiB and more get their own mappings, returned to the system when
 * freed. By default the threshold starts at 128 KiB and rises to the size of each big block freed:
 * once start-up freed its first megabytes (reading the bundle and its code cache) it let every
 * later start-up temporary into the heap, where they stayed resident behind the few blocks kept
 * after them (malloc_trim on the idle process gave back 15 MiB). Measured with 3 idle fake nodes
 * (bench:controlplane-memory): anonymous memory 70 MiB -> 50. 32 KiB saved 1-2 MiB more but cost
 * 10 % more CPU per create just after start (V8's compiler zones then get mappings of their own).
 */
export const CONTROL_PLANE_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '65536',
};

/**
 * The environment of a control plane process: `env` with the malloc settings it does not set, and
 * Node's default trust (bundled roots, NODE_EXTRA_CA_CERTS) made on first use, not at every start
 * (deferred-default-trust.ts).
 */
export function controlPlaneEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...CONTROL_PLANE_MALLOC_ENV, ...deferDefaultTrust(env) };
}

/**
 * `node <package>/dist/controlplane/main.js`: this program's control plane entry point, which
 * skips the CLI framework's start-up (the same code as the hidden `tkube controlplane`).
 */
export function builtinControlPlaneCommand(): ControlPlaneCommand {
  // dist/cluster and src/cluster are both two levels below the package root. The bundle
  // (npm run build) starts fastest; the plain module tree works too.
  const bundle = fileURLToPath(new URL('../../dist/controlplane-bundle/main.js', import.meta.url));
  const main = existsSync(bundle)
    ? bundle
    : fileURLToPath(new URL('../../dist/controlplane/main.js', import.meta.url));
  const command = { file: process.execPath, args: [...CONTROL_PLANE_NODE_FLAGS, main] };
  return isSea() ? { ...command, argv0: RUNTIME_ARGV0 } : command;
}

/** What the control plane process is told besides its state directory and port. */
export interface ControlPlaneSettings {
  /** Addresses to listen on besides 127.0.0.1 (the node network's gateway). */
  readonly extraBindAddresses?: readonly string[];
  /** Simulated nodes the control plane runs (`--fake-nodes`). */
  readonly fakeNodes?: number;
  /** The pod network node IPAM carves node CIDRs from (`--cluster-cidr`). */
  readonly clusterCidr?: string;
  /** The LoadBalancer services' addresses (`--load-balancer-ip-range`). */
  readonly loadBalancerIpRange?: string;
  /** `--datastore-endpoint`, passed in the environment (it may hold a password). */
  readonly datastoreEndpoint?: string;
  /** Several control planes (`up --control-planes N`): their apiserver ports, behind `apiPort`. */
  readonly controlPlanePorts?: readonly number[];
  /** Upstream's controller-manager and metrics-server flags, passed under their own names. */
  readonly componentFlags?: ComponentFlagSettings;
}

/** Starts the control plane detached, its output appended to the cluster's log file. */
export function startControlPlane(
  paths: ClusterPaths,
  apiPort: number,
  command: ControlPlaneCommand = builtinControlPlaneCommand(),
  settings: ControlPlaneSettings = {},
): StartedControlPlane {
  const {
    extraBindAddresses = [],
    fakeNodes = 0,
    clusterCidr,
    loadBalancerIpRange,
    datastoreEndpoint,
    controlPlanePorts,
    componentFlags,
  } = settings;
  const log = openSync(paths.controlPlaneLog, 'a', 0o600);
  let child: ChildProcess;
  try {
    const bindArgs = extraBindAddresses.length
      ? ['127.0.0.1', ...extraBindAddresses].flatMap((address) => ['--bind-address', address])
      : [];
    const fakeNodeArgs = fakeNodes > 0 ? ['--fake-nodes', String(fakeNodes)] : [];
    const args = [
      ...command.args,
      '--state-dir',
      paths.dir,
      '--api-port',
      String(apiPort),
      ...bindArgs,
      ...fakeNodeArgs,
      ...(clusterCidr ? ['--cluster-cidr', clusterCidr] : []),
      ...(loadBalancerIpRange ? ['--load-balancer-ip-range', loadBalancerIpRange] : []),
      ...(controlPlanePorts?.length ? ['--control-plane-ports', controlPlanePorts.join(',')] : []),
      ...componentFlagArgs(componentFlags),
    ];
    child = spawn(command.file, args, {
      argv0: command.argv0,
      detached: true,
      env: controlPlaneEnvironment({
        ...process.env,
        ...(datastoreEndpoint && { TKUBE_DATASTORE_ENDPOINT: datastoreEndpoint }),
      }),
      stdio: ['ignore', log, log],
    });
  } finally {
    closeSync(log);
  }
  const exited = new Promise<ControlPlaneExit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  child.unref();
  if (child.pid === undefined) {
    // spawn failed synchronously (e.g. the program is missing); 'error' carries the reason.
    return { pid: -1, exited, child };
  }
  return { pid: child.pid, exited, child };
}

/** Whether `pid` names a live process (a zombie, already dead but not reaped, does not count). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errorCode(error) !== 'EPERM') return false;
  }
  const stat = readProcFile(pid, 'stat');
  if (stat === undefined) return true;
  // The state letter follows the command name, which is in parentheses and may contain anything.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/**
 * Whether `pid` is alive and is this cluster's control plane: where /proc exists, its command
 * line must name the cluster's state directory, so a reused pid is never mistaken for it.
 */
export function isControlPlaneProcess(pid: number, paths: ClusterPaths): boolean {
  if (!isProcessAlive(pid)) return false;
  const cmdline = readProcFile(pid, 'cmdline');
  if (cmdline === undefined) return true;
  return cmdline.split('\0').includes(paths.dir);
}

/** SIGTERM, then SIGKILL to its whole process group if it has not exited after the grace period. */
export async function stopControlPlane(
  pid: number,
  paths: ClusterPaths,
  options: { gracePeriodMs?: number } = {},
): Promise<StopResult> {
  if (!isControlPlaneProcess(pid, paths)) return 'not-running';
  signal(pid, 'SIGTERM');
  if (await waitForExit(pid, options.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS)) return 'stopped';
  // Started detached, it leads its own process group: anything it started goes too.
  if (!signal(-pid, 'SIGKILL')) signal(pid, 'SIGKILL');
  await waitForExit(pid, DEFAULT_GRACE_PERIOD_MS);
  return 'killed';
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(EXIT_POLL_INTERVAL_MS);
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

function readProcFile(pid: number, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** The last `count` lines of a log file (empty when it is missing), read from its tail only. */
export async function lastLogLines(file: string, count: number): Promise<string[]> {
  const tailBytes = 64 * 1024;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - tailBytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}
