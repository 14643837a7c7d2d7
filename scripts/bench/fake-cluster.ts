// What a benchmark on simulated nodes needs: the control plane as `tkube up` starts it, run as a
// child process with `--fake-nodes N` in a scratch state directory, an admin client, the child's
// CPU time from /proc/<pid>/stat, and a poll-until helper.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sleep } from '../../src/client/informers/index.js';
import { NAMESPACES, SERVICE_ACCOUNTS } from '../../src/client/resources.js';
import { httpsClient } from '../../src/client/transports.js';
import type { Client } from '../../src/client/types.js';
import {
  builtinControlPlaneCommand,
  type ControlPlaneCommand,
  controlPlaneEnvironment,
} from '../../src/cluster/controlplane-process.js';
import { ensureClusterPki } from '../../src/pki/cluster-pki.js';

const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export interface FakeCluster {
  readonly client: Client;
  readonly pid: number;
  /** The API's port on 127.0.0.1, and the admin's client certificate for raw requests to it. */
  readonly port: number;
  readonly admin: { readonly certificatePem: string; readonly privateKeyPem: string };
  /** From spawn to the API answering, fake nodes registered. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

export async function startFakeCluster(
  name: string,
  fakeNodes: number,
  /** Another build's control plane (A/B benches against a baseline tree). */
  controlPlane: ControlPlaneCommand = builtinControlPlaneCommand(),
): Promise<FakeCluster> {
  const dir = mkdtempSync(join(tmpdir(), `tkube-bench-${name}-`));
  const pki = await ensureClusterPki(join(dir, 'pki'));
  const started = performance.now();
  const child: ChildProcess = spawn(
    controlPlane.file,
    [...controlPlane.args, '--state-dir', dir, '--api-port', '0', '--fake-nodes', String(fakeNodes)],
    // The environment `tkube up` gives the control plane (its malloc settings).
    { env: controlPlaneEnvironment(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolvePort, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on port (\d+)/.exec(output);
      if (match) resolvePort(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`control plane exited (${code}): ${output}`)));
  });
  const readyMs = performance.now() - started;
  const client = httpsClient({
    server: `https://127.0.0.1:${port}`,
    ca: pki.ca.certificatePem,
    cert: pki.admin.certificatePem,
    key: pki.admin.privateKeyPem,
    component: `bench-${name}`,
  });
  return {
    client,
    pid: child.pid!,
    port,
    admin: pki.admin,
    readyMs,
    async stop() {
      await client.close();
      child.kill('SIGTERM');
      if (child.exitCode === null)
        await new Promise((resolveExit) => {
          const timer = setTimeout(resolveExit, 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolveExit(undefined);
          });
        });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** User plus system CPU time the process has used so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
}

/** Polls `check` every `intervalMs` until it returns a value. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 10 * 60_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Runs `task` for 0..total-1, `concurrency` at a time. */
export async function pool(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

/** A namespace whose default ServiceAccount exists, so pods may be created in it. */
export async function createNamespace(client: Client, name: string): Promise<void> {
  await client.resource(NAMESPACES).create({ metadata: { name } });
  await until(`the default ServiceAccount of ${name}`, () =>
    client
      .resource(SERVICE_ACCOUNTS)
      .get(name, 'default')
      .catch(() => undefined),
  );
}
