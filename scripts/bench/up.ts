// Cluster lifecycle benchmark: `npm run bench:up` (builds first). Runs the built CLI as a user
// does, against the real Docker engine: node image build (cold and cached), `tkube up` to all
// nodes Ready for 1 and 3 nodes, `tkube down`, control-plane RSS and per-node memory, and the time
// to a first answer of an app through its Service by DNS name (up-time-to-k8s.ts). kind's and
// k3d's published create times (minikube's time-to-k8s page) are printed alongside.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { createDockerClient } from '../../src/providers/docker/docker-client.js';
import { ensureNodeImage } from '../../src/providers/docker/image/node-image.js';
import { percentile, printTable } from './report.js';
import { type TimeToK8s, timeToK8s } from './up-time-to-k8s.js';

const ROUNDS = 3;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-up-'));
const env = {
  ...process.env,
  TKUBE_HOME: join(dir, 'home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  CI: 'true',
};
const docker = createDockerClient();

async function tkube(args: string[]): Promise<number> {
  const started = performance.now();
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
  return performance.now() - started;
}

/** Resident memory of the control plane process, from its pid file. */
function controlPlaneRssMiB(cluster: string): number {
  const pid = readFileSync(join(env.TKUBE_HOME, 'clusters', cluster, 'controlplane.pid'), 'utf8').trim();
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kib / 1024;
}

/** Memory charged to each node container's cgroup (what `docker stats` shows). */
async function nodeMemoryMiB(cluster: string): Promise<number[]> {
  const containers = await docker.listContainers({ filters: { label: [`dev.tkube.cluster=${cluster}`] } });
  return Promise.all(
    containers.map(async (info) => {
      const stats = (await docker.getContainer(info.Id).stats({ stream: false })) as {
        memory_stats: { usage?: number; stats?: { cache?: number; total_inactive_file?: number } };
      };
      const usage = stats.memory_stats.usage ?? 0;
      const cache = stats.memory_stats.stats?.total_inactive_file ?? stats.memory_stats.stats?.cache ?? 0;
      return (usage - cache) / 1024 / 1024;
    }),
  );
}

const ms = (value: number) => `${(value / 1000).toFixed(2)} s`;

try {
  const cold = await ensureNodeImage({ force: true, docker });
  const cached = await ensureNodeImage({ docker });

  const results: Record<1 | 3, { up: number[]; down: number[]; rss: number[]; node: number[] }> = {
    1: { up: [], down: [], rss: [], node: [] },
    3: { up: [], down: [], rss: [], node: [] },
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const nodes of [1, 3] as const) {
      const name = `bench-${nodes}`;
      results[nodes].up.push(await tkube(['up', name, '--nodes', String(nodes)]));
      // Memory once the cluster settled (leases, status reports).
      await new Promise((resolve) => setTimeout(resolve, 3000));
      results[nodes].rss.push(controlPlaneRssMiB(name));
      results[nodes].node.push(...(await nodeMemoryMiB(name)));
      results[nodes].down.push(await tkube(['down', name]));
    }
  }
  const toApp: TimeToK8s[] = [];
  for (let round = 0; round < ROUNDS; round++) toApp.push(await timeToK8s('bench-app', env));
  const median = (values: number[]) => percentile(values, 50);
  const spread = (values: number[]) =>
    `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;
  printTable(`Time to a working app, 1 node, cached node image (median, range of ${ROUNDS})`, [
    ['measure', 'tkube', 'goal'],
    ['tkube up returned', spread(toApp.map((r) => r.upMs)), ''],
    ['  + busybox image loaded', spread(toApp.map((r) => r.loadedMs)), ''],
    ['  + Deployment answering via its Service by name', spread(toApp.map((r) => r.answeredMs)), '≤ 8 s'],
  ]);
  printTable('tkube up / down on Docker (median of 3 rounds; cached node image unless noted)', [
    ['measure', 'tkube', 'target', 'kind', 'k3d'],
    ['node image build, cold', ms(cold.durationMs), '', '', ''],
    ['node image, cached', ms(cached.durationMs), '', '', ''],
    ['up, 1 node Ready', ms(median(results[1].up)), '4 s', '14.2 s (create)', '12.6 s (create)'],
    ['up, 3 nodes Ready', ms(median(results[3].up)), '6 s', '', ''],
    ['down, 1 node', ms(median(results[1].down)), '3 s', '', ''],
    ['down, 3 nodes', ms(median(results[3].down)), '3 s', '', ''],
    ['control plane RSS, 1 node', `${median(results[1].rss).toFixed(0)} MiB`, '', '', ''],
    ['control plane RSS, 3 nodes', `${median(results[3].rss).toFixed(0)} MiB`, '', '', ''],
    ['memory per node', `${median([...results[1].node, ...results[3].node]).toFixed(0)} MiB`, '', '', ''],
  ]);
  console.log(
    JSON.stringify({
      imageColdMs: Math.round(cold.durationMs),
      imageCachedMs: Math.round(cached.durationMs),
      up1Ms: Math.round(median(results[1].up)),
      up3Ms: Math.round(median(results[3].up)),
      down1Ms: Math.round(median(results[1].down)),
      down3Ms: Math.round(median(results[3].down)),
      controlPlaneRssMiB: Math.round(median(results[3].rss)),
      nodeMemoryMiB: Math.round(median([...results[1].node, ...results[3].node])),
      timeToAppMs: Math.round(median(toApp.map((r) => r.answeredMs))),
    }),
  );
} finally {
  await execa(process.execPath, [runJs, 'down', '--all'], { env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
