// TKUBE_COMPONENT_THREADS: the built control plane runs its controller manager and scheduler on a
// thread each (`separate`), on one `shared` thread, or on the apiserver's own (`none`), and still
// does their work; a mistyped value fails the start. Started as `tkube up` starts it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinControlPlaneCommand } from '../../../src/cluster/controlplane-process.js';
import { eventually } from '../../support/control-plane.js';

const command = builtinControlPlaneCommand();

interface Started {
  readonly child: ChildProcess;
  readonly dir: string;
  readonly port: number;
  output(): string;
}

const started: Started[] = [];

afterEach(() => {
  for (const { child, dir } of started.splice(0)) {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

async function start(layout: string): Promise<Started> {
  if (!existsSync(command.args.at(-1)!)) throw new Error('dist/ is missing: run `npm run build` first');
  const dir = mkdtempSync(join(tmpdir(), 'tkube-component-layout-'));
  const child = spawn(
    command.file,
    [...command.args, '--state-dir', dir, '--api-port', '0', '--fake-nodes', '1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TKUBE_COMPONENT_THREADS: layout },
    },
  );
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on port (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`control plane exited (${code}): ${output}`)));
  });
  const running = { child, dir, port, output: () => output };
  started.push(running);
  return running;
}

function kubectl({ dir, port }: Started, args: string[]) {
  return execa(
    'kubectl',
    [
      `--server=https://127.0.0.1:${port}`,
      `--certificate-authority=${join(dir, 'pki/ca.crt')}`,
      `--client-certificate=${join(dir, 'pki/admin.crt')}`,
      `--client-key=${join(dir, 'pki/admin.key')}`,
      ...args,
    ],
    { reject: false, timeout: 30_000 },
  );
}

/** Server-side connections on the loopback socket file (the component threads' connections). */
function loopbackConnections(dir: string): number {
  const path = join(dir, 'loopback.sock');
  // Listening sockets have state 01 (SS_UNCONNECTED); accepted connections 03 (SS_CONNECTED).
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .filter((line) => line.endsWith(` ${path}`) && line.trim().split(/\s+/)[5] === '03').length;
}

async function rollsOutAndStops(running: Started): Promise<void> {
  const created = await kubectl(running, ['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
  expect(created.exitCode, created.stderr).toBe(0);
  const rolledOut = await kubectl(running, ['rollout', 'status', 'deployment/web', '--timeout=25s']);
  expect(rolledOut.stdout).toContain('successfully rolled out');
  const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
  running.child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(running.output()).toContain('control plane stopped');
  expect(running.output()).not.toMatch(/thread (failed|exited)/);
}

describe('TKUBE_COMPONENT_THREADS', () => {
  // The default on more than two cores (the tests' machine may have two, where `shared` is).
  it('separate: a thread each, both over the loopback socket', async () => {
    const running = await start('separate');
    // Each thread connects once its informers start, which may be after the port is served.
    await eventually(async () => (loopbackConnections(running.dir) >= 2 ? true : undefined));
    await rollsOutAndStops(running);
  }, 60_000);

  it('shared: both components on one thread, over the loopback socket', async () => {
    const running = await start('shared');
    expect(loopbackConnections(running.dir)).toBeGreaterThanOrEqual(1);
    await rollsOutAndStops(running);
  }, 60_000);

  it("none: both components on the apiserver's thread, no loopback socket connection", async () => {
    const running = await start('none');
    expect(loopbackConnections(running.dir)).toBe(0);
    await rollsOutAndStops(running);
  }, 60_000);

  it('a mistyped value fails the start with what it must be', async () => {
    await expect(start('two')).rejects.toThrow(
      /TKUBE_COMPONENT_THREADS="two": must be "separate", "shared" or "none"/,
    );
  }, 30_000);
});
