// The built control plane runs its controller manager (with the fake nodes) and its scheduler
// each on a thread of its own, reaching the apiserver over the loopback socket. Started as
// `tkube up` starts it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinControlPlaneCommand } from '../../../src/cluster/controlplane-process.js';

const command = builtinControlPlaneCommand();
const dir = mkdtempSync(join(tmpdir(), 'tkube-component-thread-'));
let child: ChildProcess;
let port = 0;
let output = '';

function kubectl(args: string[], input?: string) {
  return execa(
    'kubectl',
    [
      `--server=https://127.0.0.1:${port}`,
      `--certificate-authority=${join(dir, 'pki/ca.crt')}`,
      `--client-certificate=${join(dir, 'pki/admin.crt')}`,
      `--client-key=${join(dir, 'pki/admin.key')}`,
      ...args,
    ],
    { input, reject: false, timeout: 30_000 },
  );
}

/**
 * The loopback socket's entries in /proc/net/unix: the listening socket and the server end of each
 * accepted connection carry its path (a file in the state directory, not an abstract name).
 */
function loopbackSockets(): number {
  const path = join(dir, 'loopback.sock');
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .filter((line) => line.endsWith(` ${path}`)).length;
}

beforeAll(async () => {
  if (!existsSync(command.args.at(-1)!)) throw new Error('dist/ is missing: run `npm run build` first');
  child = spawn(command.file, [...command.args, '--state-dir', dir, '--api-port', '0', '--fake-nodes', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on port (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`control plane exited (${code}): ${output}`)));
  });
}, 30_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the component threads', () => {
  it('connects the controllers and the scheduler over the loopback socket', () => {
    // The listening socket plus the server end of each connection the two threads opened.
    expect(loopbackSockets()).toBeGreaterThanOrEqual(3);
    expect(statSync(join(dir, 'loopback.sock')).isSocket()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync('/proc/net/unix', 'utf8')).not.toContain(`@tkube-loopback-${child.pid}-`);
  });

  it('runs the controllers: default accounts, root CA, a Deployment down to running pods', async () => {
    const accounts = await kubectl(['get', 'serviceaccounts', '-A', '-o', 'name']);
    expect(accounts.stdout.split('\n').filter((line) => line === 'serviceaccount/default')).toHaveLength(4);
    const rootCa = await kubectl(['get', 'configmap', 'kube-root-ca.crt', '-o', 'name']);
    expect(rootCa.stdout).toBe('configmap/kube-root-ca.crt');
    const created = await kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    expect(created.exitCode, created.stderr).toBe(0);
    const rolledOut = await kubectl(['rollout', 'status', 'deployment/web', '--timeout=25s']);
    expect(rolledOut.stdout).toContain('successfully rolled out');
    const pods = await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.nodeName}']);
    expect(pods.stdout.split(' ')).toHaveLength(2);
    expect(pods.stdout).toMatch(/fake-node/);
  }, 30_000);

  it('stops with the control plane on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('control plane stopped');
    expect(output).not.toMatch(/thread (failed|exited)/);
  }, 20_000);

  it('exits with the error when it cannot serve, the threads loading since start with it', async () => {
    // The threads start loading before the apiserver listens; a failed start must not wait on them.
    const taken = createServer();
    const takenPort = await new Promise<number>((resolve) =>
      taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)),
    );
    const failedDir = mkdtempSync(join(tmpdir(), 'tkube-component-thread-failed-'));
    try {
      const started = Date.now();
      const failed = await execa(
        command.file,
        [...command.args, '--state-dir', failedDir, '--api-port', String(takenPort), '--fake-nodes', '1'],
        { reject: false, timeout: 20_000 },
      );
      expect(failed.timedOut).toBe(false);
      expect(failed.exitCode).not.toBe(0);
      expect(failed.stderr).toMatch(/EADDRINUSE|in use/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      taken.close();
      rmSync(failedDir, { recursive: true, force: true });
    }
  }, 30_000);
});
