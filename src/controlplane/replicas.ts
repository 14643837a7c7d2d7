// Several control planes on one shared datastore (kubeadm's stacked HA control plane, on one
// host): this process starts one control-plane child per port, each with its own apiserver and
// its controller manager and scheduler under leader election, and serves the cluster's single
// endpoint with a TCP balancer in front of them. The balancer lives here, not in a control
// plane, so that it survives the loss of any one of them; a child that dies is started again,
// as a kubelet restarts a static pod. `tkube stop`/`down` signal this process, which stops all.
import { type ChildProcess, spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { TcpBalancer } from '../balancer/tcp-balancer.js';
import { ensureClusterPki } from '../pki/cluster-pki.js';

export interface ReplicasArgs {
  readonly stateDir: string;
  /** The cluster's endpoint, where the balancer listens. */
  readonly apiPort: number;
  readonly bindAddresses?: readonly string[];
  /** One apiserver port per control plane, on 127.0.0.1 (and the bind addresses). */
  readonly controlPlanePorts: readonly number[];
  /** The flags each child gets besides its state directory, port and leader-election identity. */
  readonly childArgs: readonly string[];
}

/** What `control-planes.json` in the state directory says about each running child. */
export interface ControlPlaneMember {
  readonly apiPort: number;
  readonly pid: number;
  /** Its Lease holder identity. */
  readonly identity: string;
}

export const MEMBERS_FILE = 'control-planes.json';
const RESTART_DELAY_MS = 1_000;
const STOP_GRACE_MS = 10_000;

export async function runControlPlaneReplicas(
  args: ReplicasArgs,
  log: (line: string) => void,
): Promise<void> {
  const addresses = args.bindAddresses?.length
    ? ['127.0.0.1', ...args.bindAddresses.filter((a) => a !== '127.0.0.1')]
    : ['127.0.0.1'];
  const balancer = new TcpBalancer({
    backends: args.controlPlanePorts.map((port) => ({ host: '127.0.0.1', port })),
    caPem: (await ensureClusterPki(join(args.stateDir, 'pki'))).ca.certificatePem,
    log,
  });
  await balancer.listen(addresses, args.apiPort);
  const members = new Map<number, ControlPlaneMember>();
  const children = new Map<number, ChildProcess>();
  let stopping = false;
  const writeMembers = (): void => {
    const list = args.controlPlanePorts.flatMap((port) => members.get(port) ?? []);
    // Written aside and renamed, so a reader never sees half a file.
    const file = join(args.stateDir, MEMBERS_FILE);
    writeFileSync(`${file}.tmp`, `${JSON.stringify(list, null, 2)}\n`, { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  };
  const launch = (index: number): void => {
    const port = args.controlPlanePorts[index]!;
    // Upstream's identity is `<hostname>_<uuid>`; the port tells this host's control planes apart.
    const identity = `${hostname()}-${port}_${crypto.randomUUID()}`;
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        process.argv[1]!,
        '--state-dir',
        args.stateDir,
        '--api-port',
        String(port),
        ...args.childArgs,
        '--advertise-port',
        String(args.apiPort),
        '--leader-elect-identity',
        identity,
      ],
      // The IPC channel closes when this process dies, however it dies: the child then stops.
      { argv0: process.argv0, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    children.set(index, child);
    for (const stream of [child.stdout, child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on('line', (line) => log(`[control-plane-${index}] ${line}`));
    }
    if (child.pid !== undefined) members.set(port, { apiPort: port, pid: child.pid, identity });
    writeMembers();
    child.once('exit', (code, signal) => {
      members.delete(port);
      if (stopping) return;
      writeMembers();
      log(
        `control plane ${index} (port ${port}) exited (${signal ?? `code ${code}`}); starting it again in ${RESTART_DELAY_MS} ms`,
      );
      setTimeout(() => {
        if (!stopping) launch(index);
      }, RESTART_DELAY_MS);
    });
  };
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      log(`received ${signal}, stopping ${children.size} control planes`);
      stopping = true;
      void stopAll([...children.values()])
        .then(() => balancer.stop())
        .then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  // One after the other: the first bootstraps the shared store (namespaces, policy, the
  // front-proxy PKI) before the others read it.
  for (const [index, port] of args.controlPlanePorts.entries()) {
    if (stopping) break;
    launch(index);
    await balancer.waitHealthy(index);
    log(`control plane ${index} ready on port ${port}`);
  }
  if (!stopping) log(`control planes serving behind port ${args.apiPort}`);
  await stopped;
  log('control planes stopped');
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
