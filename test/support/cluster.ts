import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa, execaSync } from 'execa';
import { tkube } from './cli.js';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface TestCluster {
  readonly name: string;
  readonly kubeconfig: string;
  readonly env: Record<string, string>;
  /** Runs the real kubectl (the cluster's `kubectl`, or `binary`) against this cluster. */
  kubectl(
    args: string[],
    options?: { input?: string; env?: Record<string, string>; binary?: string },
  ): Promise<CommandResult>;
  down(): Promise<void>;
}

/**
 * The kubectl release `version` (such as `1.33`): the versioned binaries stand beside the one the
 * PATH's `kubectl` points to (`kubectl.1.27` … `kubectl.1.33`).
 */
export function kubectlRelease(version: string): string {
  const onPath = execaSync('sh', ['-c', 'command -v kubectl']).stdout.trim();
  return join(dirname(realpathSync(onPath)), `kubectl.${version}`);
}

/**
 * Brings up a control-plane-only cluster (plus `fakeNodes` simulated nodes) with the built CLI in
 * a private TKUBE_HOME and KUBECONFIG; `config` is a cluster config file's text for
 * `up --config` (with `nodes: []`, as the cluster has no Docker node).
 */
export async function startTestCluster(
  name = 'it',
  options: { fakeNodes?: number; kubectl?: string; upArgs?: string[]; config?: string } = {},
): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-it-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const env = { TKUBE_HOME: join(dir, 'home'), KUBECONFIG: kubeconfig, HOME: dir, CI: 'true' };
  const fakeNodes = options.fakeNodes ? ['--fake-nodes', String(options.fakeNodes)] : [];
  const clusterKubectl = options.kubectl ?? 'kubectl';
  const config = options.config === undefined ? [] : ['--config', writeConfigFile(dir, options.config)];
  const up = await tkube(
    ['up', name, '--nodes', '0', ...fakeNodes, ...config, ...(options.upArgs ?? [])],
    env,
  );
  if (up.exitCode !== 0) throw new Error(`tkube up failed: ${up.stderr}`);
  return {
    name,
    kubeconfig,
    env,
    async kubectl(args, options = {}) {
      const result = await execa(options.binary ?? clusterKubectl, ['--kubeconfig', kubeconfig, ...args], {
        reject: false,
        input: options.input,
        env: { ...env, ...options.env },
        timeout: 60_000,
      });
      return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
    },
    async down() {
      await tkube(['down', name], env);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A cluster config file's text written into a test's directory; its path. */
export function writeConfigFile(dir: string, text: string): string {
  const path = join(dir, 'cluster.yaml');
  writeFileSync(path, text);
  return path;
}
