// The built CLI end to end with the real control plane: `tkube up --nodes 0`, real kubectl
// against it, status/list/kubeconfig, `tkube down` leaving nothing behind, and every user error
// reported as one line.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { isProcessAlive } from '../../../src/cluster/controlplane-process.js';
import { type CliResult, tkube } from '../../support/cli.js';

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-cluster-'));
  const kubeconfig = join(dir, 'kube', 'config');
  const env = { TKUBE_HOME: join(dir, 'home'), KUBECONFIG: kubeconfig, HOME: dir, CI: 'true' };
  const run = (args: string[]) => tkube(args, env);
  // A failed test must not leave a control plane running.
  onTestFinished(async () => {
    const clusters = join(env.TKUBE_HOME, 'clusters');
    if (existsSync(clusters) && readdirSync(clusters).length > 0) await run(['down', '--all']);
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, kubeconfig, env, run };
}

/** A user error: exit 1 and exactly one line on stderr, `Error: <message>`, without a stack trace. */
function expectOneLineError(result: CliResult, message: string | RegExp): void {
  expect(result.exitCode, result.stderr).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  if (typeof message === 'string') expect(lines[0]).toContain(message);
  else expect(lines[0]).toMatch(message);
}

describe('tkube up / status / list / down', () => {
  it('runs a control-plane-only cluster that kubectl uses, then removes every trace of it', async () => {
    const { kubeconfig, env, run } = sandbox();
    const created = await run(['up', 'dev', '--nodes', '0']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toContain('Set kubectl context to "tkube-dev"');
    expect(created.stdout).toContain('kubectl cluster-info --context tkube-dev');
    // Plain progress lines when CI=true: one per step.
    expect(created.stderr).toMatch(/Waiting for the API server to be ready/);

    const kubectl = (args: string[]) =>
      execa('kubectl', ['--kubeconfig', kubeconfig, ...args], { reject: false });
    const readyz = await kubectl(['get', '--raw', '/readyz']);
    expect(readyz.stdout, readyz.stderr).toBe('ok');
    const version = await kubectl(['version', '-o', 'json']);
    expect(version.exitCode, version.stderr).toBe(0);
    expect(JSON.parse(version.stdout).serverVersion.gitVersion).toMatch(/^v1\.33\./);
    const context = await kubectl(['config', 'current-context']);
    expect(context.stdout).toBe('tkube-dev');

    const status = await run(['status', 'dev', '-o', 'json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const info = JSON.parse(status.stdout);
    expect(info).toMatchObject({ name: 'dev', state: 'Running', nodes: 0, apiServer: { ready: true } });
    const pid = info.controlPlane.pid as number;
    expect(isProcessAlive(pid)).toBe(true);
    // Started with the control plane's malloc settings (controlPlaneEnvironment).
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(
      'MALLOC_MMAP_THRESHOLD_=65536',
    );

    const list = await run(['list']);
    expect(list.stdout).toMatch(
      /^NAME +STATUS +API SERVER +NODES +AGE\ndev +Running +https:\/\/127\.0\.0\.1:\d+ +0 +\d+s$/,
    );

    const printed = await run(['kubeconfig', 'dev']);
    expect(printed.stdout).toContain(`server: ${info.apiServer.url}`);
    expect(printed.stdout).toContain('current-context: tkube-dev');

    expectOneLineError(
      await run(['up', 'dev', '--nodes', '0']),
      'cluster "dev" already exists; delete it first',
    );
    expectOneLineError(
      await run(['up', 'other', '--nodes', '0', '--api-port', String(info.apiPort)]),
      `port ${info.apiPort} is already in use on 127.0.0.1; choose another with --api-port`,
    );

    const deleted = await run(['down', 'dev']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain('Deleted cluster "dev"');
    expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(join(env.TKUBE_HOME, 'clusters', 'dev'))).toBe(false);
    expect(readFileSync(kubeconfig, 'utf8')).not.toContain('tkube-dev');
    expect((await run(['list'])).stderr).toContain('No clusters found.');
  }, 120_000);

  it('reports each bad input as one line with a hint, creating nothing', async () => {
    const { dir, env, run } = sandbox();
    expectOneLineError(
      await run(['up', 'Bad_Name', '--nodes', '0']),
      'invalid cluster name "Bad_Name": a lowercase RFC 1123 label',
    );
    expectOneLineError(
      await run(['up', 'dev', '--nodes', '201']),
      '--nodes 201: the node count must be a whole number from 0 to 200',
    );
    writeFileSync(join(dir, 'not-a-dir'), '');
    expectOneLineError(
      await run(['up', 'dev', '--nodes', '0', '--kubeconfig', join(dir, 'not-a-dir', 'config')]),
      /cannot write kubeconfig .*: a parent path is not a directory; pass --kubeconfig PATH/,
    );
    expectOneLineError(
      await run(['status', 'ghost']),
      'cluster "ghost" does not exist; list the clusters with "tkube list"',
    );
    expectOneLineError(await run(['kubeconfig', 'ghost']), 'cluster "ghost" does not exist');
    expect(existsSync(join(env.TKUBE_HOME, 'clusters', 'dev'))).toBe(false);
  });
});

describe('--name', () => {
  it('names the cluster as kind spells it, for up, status, kubeconfig and down', async () => {
    const { env, run } = sandbox();
    const created = await run(['up', '--name', 'named', '--nodes', '0']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toContain('Set kubectl context to "tkube-named"');
    const status = await run(['status', '--name', 'named', '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ name: 'named', state: 'Running' });
    const kubeconfig = await run(['kubeconfig', '--name', 'named']);
    expect(kubeconfig.stdout).toContain('name: tkube-named');
    const conflicting = await run(['status', 'other', '--name', 'named']);
    expectOneLineError(conflicting, 'two cluster names given');
    const removed = await run(['down', '--name', 'named']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(existsSync(join(env.TKUBE_HOME, 'clusters', 'named'))).toBe(false);
  });
});
