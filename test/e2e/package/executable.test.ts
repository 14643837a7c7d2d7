// The single `tkube` executable (scripts/build/executable.ts) on a machine without Node.js: built
// from dist/, copied alone into an empty directory and run with a PATH that holds docker,
// coreutils and ldd (the offline node-image builder's) but no `node`. It prints its version,
// brings up two Docker nodes whose image holds the same executable as the agent's runtime, runs
// its control plane with itself, and tears the cluster down.
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExecutable } from '../../../scripts/build/executable.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-e2e-executable-'));
const executable = join(dir, 'app', 'tkube');
const pathDir = join(dir, 'path');
const cluster = `pk-exe-${randomBytes(3).toString('hex')}`;
const env = {
  HOME: join(dir, 'home'),
  TKUBE_HOME: join(dir, 'tkube-home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  PATH: pathDir,
  CI: 'true',
};
/** What the PATH offers: Docker's client, coreutils and ldd; no Node.js. */
const HOST_COMMANDS = ['docker', 'ldd', 'sh', 'cat', 'ls', 'cp', 'mv', 'rm', 'mkdir', 'env', 'id', 'uname'];
let buildSeconds = 0;
let nodeImage: string | undefined;

function run(args: string[], timeout = 60_000) {
  return execa(executable, args, { env, extendEnv: false, cwd: dir, reject: false, timeout });
}

function kubectl(args: string[]) {
  return execa('kubectl', ['--context', `tkube-${cluster}`, ...args], {
    env: { KUBECONFIG: env.KUBECONFIG },
    reject: false,
    timeout: 30_000,
  });
}

beforeAll(async () => {
  const built = await buildExecutable();
  buildSeconds = built.durationMs / 1000;
  mkdirSync(join(dir, 'app'));
  mkdirSync(pathDir);
  copyFileSync(built.path, executable);
  for (const command of HOST_COMMANDS) {
    const found = await execa('sh', ['-c', `command -v ${command}`], { reject: false });
    if (found.exitCode === 0) symlinkSync(found.stdout.trim(), join(pathDir, command));
  }
}, 180_000);

afterAll(async () => {
  await run(['down', cluster], 120_000);
  if (nodeImage) await execa('docker', ['image', 'rm', nodeImage], { reject: false });
  rmSync(dir, { recursive: true, force: true });
}, 180_000);

describe('the tkube executable, without Node.js or node_modules', () => {
  it('is built in seconds into one file, and the PATH it runs with has no node', async () => {
    console.log(
      `executable built in ${buildSeconds.toFixed(1)} s, ${(statSync(executable).size / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(buildSeconds).toBeLessThan(120);
    const which = await execa('sh', ['-c', 'command -v node'], { env: { PATH: pathDir }, reject: false });
    expect(which.exitCode).not.toBe(0);
    expect(existsSync(join(dir, 'app', 'node_modules'))).toBe(false);
  });

  it('prints its version', async () => {
    const result = await run(['version']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^tkube version: \d+\.\d+\.\d+$/m);
    expect(result.stdout).toMatch(/^Kubernetes API: v1\.33\.\d+$/m);
    expect(result.stdout).toMatch(/^Node.js: v20\./m);
    const json = await run(['version', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ kubernetesVersion: expect.stringMatching(/^v1\.33\./) });
    // A command through oclif, which finds the bundled commands through package.json.
    const list = await run(['list']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout + list.stderr).toContain('No clusters found');
    const unknown = await run(['no-such-command']);
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stderr).toContain('command no-such-command not found');
    // The first run writes the payload (about 10 MiB) to the cache: slow on a loaded machine.
  }, 120_000);

  it('brings up two Docker nodes, Ready, with itself as the control plane and the agent runtime', async () => {
    const up = await run(['up', cluster, '--nodes', '2'], 300_000);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);

    const nodes = await kubectl(['get', 'nodes', '-o', 'json']);
    expect(nodes.exitCode, nodes.stderr).toBe(0);
    const items = (
      JSON.parse(nodes.stdout) as {
        items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[];
      }
    ).items;
    expect(items).toHaveLength(2);
    for (const node of items)
      expect(node.status.conditions.find((c) => c.type === 'Ready')?.status, node.metadata.name).toBe('True');

    // The control plane is this executable, run as `node`.
    const pid = Number(
      readFileSync(join(env.TKUBE_HOME, 'clusters', cluster, 'controlplane.pid'), 'utf8').trim(),
    );
    expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(executable));
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toBe('node');

    // Each node runs its agent on the same executable, installed as node.
    const node = items[0]!.metadata.name;
    const inspect = await execa('docker', ['inspect', '--format', '{{.Config.Image}}', node]);
    nodeImage = inspect.stdout.trim();
    const size = await execa('docker', ['exec', node, 'stat', '-c', '%s', '/usr/local/bin/node']);
    expect(Number(size.stdout)).toBe(statSync(executable).size);
    const agent = await execa('docker', ['exec', node, 'sh', '-c', 'ps -eo args']);
    expect(agent.stdout).toContain('node /opt/tkube/agent/agent.mjs');
  }, 330_000);

  it('tears the cluster down', async () => {
    const down = await run(['down', cluster], 120_000);
    expect(down.exitCode, down.stderr).toBe(0);
    const left = await execa('docker', ['ps', '-a', '--filter', `label=dev.tkube.cluster=${cluster}`, '-q']);
    expect(left.stdout.trim()).toBe('');
    expect(existsSync(join(env.TKUBE_HOME, 'clusters', cluster))).toBe(false);
  }, 150_000);
});
