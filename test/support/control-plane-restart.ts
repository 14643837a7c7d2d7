// A control plane crash for tests: the cluster's control plane process (apiserver, controller
// manager, scheduler and fake nodes) killed with SIGKILL, then started again with the same
// command line and state directory, as a supervisor would restart it.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { isProcessAlive } from '../../src/cluster/controlplane-process.js';
import { clusterPaths, readControlPlanePid, writeControlPlanePid } from '../../src/cluster/state.js';
import type { TestCluster } from './cluster.js';
import { eventually } from './control-plane.js';

/** Kills the cluster's control plane at once (no graceful stop) and waits until it is gone. */
export async function killControlPlane(cluster: TestCluster): Promise<string[]> {
  const paths = clusterPaths(cluster.name, cluster.env);
  const pid = await readControlPlanePid(paths);
  if (pid === undefined) throw new Error(`cluster ${cluster.name} records no control plane pid`);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  // Started detached, the control plane leads its own process group.
  process.kill(-pid, 'SIGKILL');
  await eventually(async () => (isProcessAlive(pid) ? undefined : true), 10_000, 20);
  return argv;
}

/** Starts the control plane again with `argv` and waits until `/readyz` answers ok. */
export async function restartControlPlane(cluster: TestCluster, argv: string[]): Promise<void> {
  const paths = clusterPaths(cluster.name, cluster.env);
  const log = openSync(paths.controlPlaneLog, 'a', 0o600);
  try {
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
    child.unref();
    if (child.pid === undefined) throw new Error('the control plane did not start again');
    // `tkube down` stops the process the pid file names.
    await writeControlPlanePid(paths, child.pid);
  } finally {
    closeSync(log);
  }
  await eventually(
    async () => {
      const ready = await cluster.kubectl(['get', '--raw', '/readyz']);
      return ready.exitCode === 0 && ready.stdout.trim() === 'ok' ? true : undefined;
    },
    60_000,
    200,
  );
}

/** SIGKILL, then a restart on the same state. */
export async function crashControlPlane(cluster: TestCluster): Promise<void> {
  await restartControlPlane(cluster, await killControlPlane(cluster));
}
