// Shared by the kubelet e2e suites: a two-node cluster of its own (private TKUBE_HOME and
// KUBECONFIG), a busybox image built from the host's busybox-static and loaded into it, an API
// client to create and watch pods, and reading container logs from the nodes.
import { mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { PODS } from '../../../src/client/resources.js';
import { clientFromKubeconfig } from '../../../src/client/transports.js';
import type { Client, ResourceClient } from '../../../src/client/types.js';
import { readEngineMessages } from '../../../src/providers/docker/engine-stream.js';
import { tarStream } from '../../../src/providers/docker/tar.js';
import { tkube } from '../../support/cli.js';
import { writeConfigFile } from '../../support/cluster.js';
import { docker, e2eClusterName, sharedNodeImage } from '../docker/support.js';

export const BUSYBOX = 'tkube-test/busybox:1';
const APPLETS = [
  'sh',
  'httpd',
  'nc',
  'sleep',
  'cat',
  'echo',
  'env',
  'printf',
  'test',
  'date',
  'id',
  'true',
  'nslookup',
  'chroot',
  // kubectl cp runs tar in the container.
  'tar',
];

/** busybox-static and its applets as an image, `docker import`ed: nothing is pulled. */
export async function buildBusyboxImage(reference = BUSYBOX): Promise<void> {
  const [repo, tag] = reference.split(':') as [string, string];
  const { size } = await stat('/bin/busybox');
  const response = await docker.importImage(
    tarStream([
      { type: 'directory', path: 'bin', mode: 0o755 },
      { type: 'directory', path: 'tmp', mode: 0o1777 },
      { type: 'hostFile', path: 'bin/busybox', mode: 0o755, source: '/bin/busybox', size },
      ...APPLETS.map((applet) => ({ type: 'symlink' as const, path: `bin/${applet}`, target: 'busybox' })),
    ]),
    { repo, tag, changes: ['CMD ["/bin/sh"]'] },
  );
  await readEngineMessages(response, 'importing the busybox image');
}

export interface KubeletCluster {
  readonly name: string;
  readonly nodes: readonly string[];
  readonly client: Client;
  readonly pods: ResourceClient<Pod>;
  /** The cluster's private TKUBE_HOME. */
  readonly home: string;
  kubectl(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  down(): Promise<void>;
}

/**
 * `tkube up <suite> --nodes 2` (or `nodes`), the busybox image loaded; `extraEnv` goes to `tkube up`,
 * and `config`, a cluster config file's text, to its `--config` (its nodes as many as `nodes`).
 */
export async function startKubeletCluster(
  suite: string,
  nodes = 2,
  extraEnv: Record<string, string> = {},
  config?: string,
): Promise<KubeletCluster> {
  const name = e2eClusterName(suite);
  const dir = mkdtempSync(join(tmpdir(), `tkube-e2e-${suite}-`));
  const env = {
    TKUBE_HOME: join(dir, 'home'),
    KUBECONFIG: join(dir, 'kubeconfig'),
    HOME: dir,
    CI: 'true',
    PATH: process.env.PATH ?? '',
    ...extraEnv,
  };
  await Promise.all([sharedNodeImage(), buildBusyboxImage()]);
  const configArgs = config === undefined ? [] : ['--config', writeConfigFile(dir, config)];
  const up = await tkube(['up', name, '--nodes', String(nodes), ...configArgs], env);
  if (up.exitCode !== 0) throw new Error(`tkube up failed: ${up.stderr}`);
  const load = await tkube(['load', 'image', BUSYBOX, '--name', name], env);
  if (load.exitCode !== 0) throw new Error(`tkube load image failed: ${load.stderr}`);
  const client = clientFromKubeconfig(env.KUBECONFIG, `tkube-${name}`, 'e2e');
  return {
    name,
    nodes: Array.from({ length: nodes }, (_, i) => `${name}-node-${i}`),
    client,
    pods: client.resource<Pod>(PODS),
    home: env.TKUBE_HOME,
    ...kubectlAndDown(name, env, dir, client),
  };
}

/** kubectl in a test cluster's context and its teardown, with the cluster's private environment. */
export function kubectlAndDown(
  name: string,
  env: Record<string, string>,
  dir: string,
  client: Client,
): Pick<KubeletCluster, 'kubectl' | 'down'> {
  return {
    async kubectl(args, input) {
      const result = await execa('kubectl', ['--context', `tkube-${name}`, ...args], {
        env,
        input,
        reject: false,
        timeout: 60_000,
      });
      return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
    },
    async down() {
      await client.close();
      await tkube(['down', name], env);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A pod on a node (bypassing the scheduler, as static and DaemonSet pods do). */
export function podOn(node: string, name: string, spec: Omit<NonNullable<Pod['spec']>, 'nodeName'>): Pod {
  return { metadata: { name, namespace: 'default' }, spec: { ...spec, nodeName: node } };
}

/** Polls `get` until `done` holds, returning the last object; fails after `timeoutMs`. */
export async function waitFor<T>(
  get: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    try {
      last = await get();
      if (done(last)) return last;
    } catch {
      // not there yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 2000)}`);
}

export function waitForPod(
  cluster: KubeletCluster,
  name: string,
  done: (pod: Pod) => boolean,
  timeoutMs = 60_000,
) {
  return waitFor(() => cluster.pods.get('default', name), done, timeoutMs, `pod ${name}`);
}

/** The log of a container run on its node (`/var/log/pods/...`), without the CRI prefixes. */
export async function containerLog(pod: Pod, container: string, restart = 0): Promise<string> {
  const meta = pod.metadata!;
  const path = `/var/log/pods/${meta.namespace}_${meta.name}_${meta.uid}/${container}/${restart}.log`;
  const result = await execa('docker', ['exec', pod.spec!.nodeName!, 'cat', path], { reject: false });
  return result.stdout
    .split('\n')
    .map((line) => line.replace(/^\S+ (stdout|stderr) [FP] /, ''))
    .join('\n');
}

export const isRunning = (pod: Pod): boolean => pod.status?.phase === 'Running';
export const isReady = (pod: Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
