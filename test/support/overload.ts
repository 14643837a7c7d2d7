// What a flooding client does to everyone else: a Deployment rollout on fake nodes and repeated
// `kubectl get pods`, timed with or without a flood running. Shared by the overload test and
// `npm run bench:api`.
import { performance } from 'node:perf_hooks';
import type { TestCluster } from './cluster.js';
import { type FloodResult, flood } from './flood.js';

export interface OverloadSample {
  readonly rolloutMs: number;
  readonly kubectlMs: readonly number[];
  readonly flood?: FloodResult;
}

export interface OverloadSetup {
  readonly origin: string;
  readonly ca: string;
  /** The flooding ServiceAccount's token, in `namespace`. */
  readonly floodToken: string;
  readonly namespace: string;
}

async function kubectlOk(cluster: TestCluster, args: string[]): Promise<string> {
  const result = await cluster.kubectl(args);
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/**
 * Creates a namespace and a ServiceAccount `flooder` that may edit it; returns what flood() and
 * measure() need.
 */
export async function prepareOverload(cluster: TestCluster, namespace: string): Promise<OverloadSetup> {
  const view = (path: string) =>
    kubectlOk(cluster, [
      'config',
      'view',
      '--raw',
      '--minify',
      '-o',
      `jsonpath={.clusters[0].cluster.${path}}`,
    ]);
  const origin = await view('server');
  const ca = Buffer.from(await view('certificate-authority-data'), 'base64').toString('utf8');
  await kubectlOk(cluster, ['create', 'namespace', namespace]);
  await kubectlOk(cluster, ['create', 'serviceaccount', 'flooder', '-n', namespace]);
  await kubectlOk(cluster, [
    'create',
    'rolebinding',
    'flooder',
    '-n',
    namespace,
    '--clusterrole=edit',
    `--serviceaccount=${namespace}:flooder`,
  ]);
  const floodToken = (await kubectlOk(cluster, ['create', 'token', 'flooder', '-n', namespace])).trim();
  return { origin, ca, floodToken, namespace };
}

/**
 * Rolls out Deployment `name` (6 replicas) while `kubectl get pods` runs `kubectlRuns` times,
 * with a flood of `floodMs` started 2 s before when `floodMs` is set.
 */
export async function measure(
  cluster: TestCluster,
  setup: OverloadSetup,
  name: string,
  options: { floodMs?: number; kubectlRuns?: number; concurrency?: number } = {},
): Promise<OverloadSample> {
  const flooding =
    options.floodMs === undefined
      ? undefined
      : flood({
          origin: setup.origin,
          ca: setup.ca,
          token: setup.floodToken,
          namespace: setup.namespace,
          concurrency: options.concurrency ?? 400,
          durationMs: options.floodMs,
        });
  if (flooding) await new Promise((resolve) => setTimeout(resolve, 2_000));
  const rollout = (async () => {
    const started = performance.now();
    await kubectlOk(cluster, [
      'create',
      'deployment',
      name,
      '-n',
      setup.namespace,
      '--image=registry.k8s.io/pause:3.10',
      '--replicas=6',
    ]);
    await kubectlOk(cluster, [
      'rollout',
      'status',
      `deployment/${name}`,
      '-n',
      setup.namespace,
      '--timeout=120s',
    ]);
    return performance.now() - started;
  })();
  const kubectlMs: number[] = [];
  for (let run = 0; run < (options.kubectlRuns ?? 8); run++) {
    const started = performance.now();
    await kubectlOk(cluster, ['get', 'pods', '-n', setup.namespace, '-l', `app=${name}`]);
    kubectlMs.push(performance.now() - started);
  }
  const rolloutMs = await rollout;
  const result = await flooding;
  return { rolloutMs, kubectlMs, ...(result ? { flood: result } : {}) };
}
