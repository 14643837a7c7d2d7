// Shared by the volumes, logs and probes e2e files: a `tkube up --nodes 2` cluster of their own
// (private TKUBE_HOME and KUBECONFIG), a busybox image made from the host's busybox-static and
// loaded into the nodes, and kubectl against the cluster.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { readEngineMessages } from '../../../src/providers/docker/engine-stream.js';
import { tarStream } from '../../../src/providers/docker/tar.js';
import { tkube } from '../../support/cli.js';
import { docker, sharedNodeImage } from '../docker/support.js';

const APPLETS = [
  'sh',
  'cat',
  'echo',
  'sleep',
  'ls',
  'stat',
  'test',
  'touch',
  'rm',
  'httpd',
  'nc',
  'wget',
  'mount',
  'df',
  'date',
  'seq',
  'head',
  'tail',
  'grep',
  'cut',
  'base64',
  'tr',
  'mkdir',
  'readlink',
  'true',
  'false',
  'id',
  'env',
  'sort',
];

export interface KubeletCluster {
  readonly name: string;
  readonly image: string;
  kubectl(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** A long-running kubectl (logs -f). */
  spawnKubectl(args: string[]): ResultPromise;
  apply(objects: readonly object[]): Promise<void>;
  json<T>(args: string[]): Promise<T>;
  waitFor<T>(check: () => Promise<T | undefined>, timeoutMs?: number): Promise<T>;
  down(): Promise<void>;
}

async function buildBusybox(reference: string): Promise<void> {
  const [repo, tag] = reference.split(':') as [string, string];
  const { size } = await stat('/bin/busybox');
  const response = await docker.importImage(
    tarStream([
      { type: 'directory', path: 'bin', mode: 0o755 },
      { type: 'directory', path: 'tmp', mode: 0o1777 },
      { type: 'directory', path: 'www', mode: 0o755 },
      { type: 'hostFile', path: 'bin/busybox', mode: 0o755, source: '/bin/busybox', size },
      ...APPLETS.map((applet) => ({ type: 'symlink' as const, path: `bin/${applet}`, target: 'busybox' })),
    ]),
    { repo, tag, changes: ['CMD ["/bin/sh"]', 'ENV PATH=/bin'] },
  );
  await readEngineMessages(response, 'importing the busybox test image');
}

/** Brings up the suite's cluster with the busybox image loaded. */
export async function startKubeletCluster(suite: string): Promise<KubeletCluster> {
  const suffix = randomBytes(3).toString('hex');
  const name = `e2e-${suite}-${suffix}`;
  const image = `tkube-test/busybox:${suite}-${suffix}`;
  const dir = mkdtempSync(join(tmpdir(), `tkube-e2e-${suite}-`));
  const env = {
    TKUBE_HOME: join(dir, 'home'),
    KUBECONFIG: join(dir, 'kubeconfig'),
    HOME: dir,
    CI: 'true',
    PATH: process.env.PATH ?? '',
  };
  await Promise.all([sharedNodeImage(), buildBusybox(image)]);
  const down = async () => {
    await tkube(['down', name], env);
    await docker
      .getImage(image)
      .remove({ force: true })
      .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  const up = await tkube(['up', name, '--nodes', '2'], env);
  if (up.exitCode !== 0) {
    await down();
    throw new Error(`tkube up failed: ${up.stderr}`);
  }
  const loaded = await tkube(['load', 'image', image, '--name', name], env);
  if (loaded.exitCode !== 0) {
    await down();
    throw new Error(`tkube load image failed: ${loaded.stderr}`);
  }
  const context = ['--context', `tkube-${name}`];
  const kubectl = async (args: string[], input?: string) => {
    const result = await execa('kubectl', [...context, ...args], {
      env,
      reject: false,
      timeout: 60_000,
      input,
    });
    return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
  };
  const cluster: KubeletCluster = {
    name,
    image,
    kubectl,
    spawnKubectl: (args) => execa('kubectl', [...context, ...args], { env, reject: false }),
    async apply(objects) {
      const result = await kubectl(['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
      if (result.exitCode !== 0) throw new Error(`kubectl apply failed: ${result.stderr}`);
    },
    async json<T>(args: string[]) {
      const result = await kubectl([...args, '-o', 'json']);
      if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    async waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await check();
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    down,
  };
  return cluster;
}

/**
 * Registers the suite's cluster: up before its tests (then `ready` runs, e.g. to create pods),
 * down after them. Hands the cluster to `use` once it is up.
 */
export function useKubeletCluster(
  suite: string,
  use: (cluster: KubeletCluster) => void,
  ready?: (cluster: KubeletCluster) => Promise<void>,
): void {
  let cluster: KubeletCluster | undefined;
  beforeAll(async () => {
    cluster = await startKubeletCluster(suite);
    use(cluster);
    await ready?.(cluster);
  }, 360_000);
  afterAll(async () => {
    await cluster?.down();
  }, 120_000);
}

/** A pod pinned to a node (the scheduler is not needed), running the busybox image. */
export function busyboxPod(
  cluster: KubeletCluster,
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  const withImage = (list: unknown) =>
    (list as Record<string, unknown>[] | undefined)?.map((c) => ({
      image: cluster.image,
      imagePullPolicy: 'Never',
      ...c,
    }));
  const containers = withImage(spec.containers);
  const initContainers = withImage(spec.initContainers);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...metadata },
    spec: {
      nodeName: `${cluster.name}-node-1`,
      terminationGracePeriodSeconds: 1,
      ...spec,
      containers,
      ...(initContainers ? { initContainers } : {}),
    },
  };
}

interface PodView {
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      restartCount: number;
      state?: Record<string, { reason?: string }>;
    }[];
  };
}

export async function podView(cluster: KubeletCluster, name: string): Promise<PodView> {
  return cluster.json<PodView>(['get', 'pod', name]);
}

/** Waits until the pod's first container runs. */
export function waitRunning(cluster: KubeletCluster, name: string, timeoutMs = 60_000): Promise<PodView> {
  return cluster.waitFor(async () => {
    const pod = await podView(cluster, name);
    return pod.status?.containerStatuses?.every((c) => c.state?.running) &&
      pod.status.containerStatuses.length > 0
      ? pod
      : undefined;
  }, timeoutMs);
}

/** The messages of the events about an object. */
export async function eventMessages(
  cluster: KubeletCluster,
  name: string,
): Promise<{ reason: string; message: string }[]> {
  const list = await cluster.json<{ items: { reason: string; message: string }[] }>([
    'get',
    'events',
    '--field-selector',
    `involvedObject.name=${name}`,
  ]);
  return list.items.map((event) => ({ reason: event.reason, message: event.message }));
}
