// Stop, start and node add times for 3 nodes (issue 27): `tkube stop`, `tkube start` to every
// node Ready (goal ≤ 5 s) and on to every workload pod Running again with a fresh container
// (goal ≤ 10 s), and `tkube node add` to a Ready node. Used by bench:up (scripts/bench/up.ts);
// `tsx scripts/bench/up-lifecycle.ts` runs it alone (BENCH_UP_ROUNDS rounds, default 3).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { BUSYBOX, buildBusyboxImage } from '../../test/e2e/kubelet/pods-support.js';
import { backendContainer } from '../../test/e2e/network/support.js';
import { isolatedCliEnv } from './cli-env.js';
import { percentile, printTable } from './report.js';

const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const REPLICAS = 6;

export interface LifecycleTimes {
  readonly stopMs: number[];
  /** `tkube start` returned: every node Ready. */
  readonly startMs: number[];
  /** From `tkube start` to every workload pod Ready with a container started after the stop. */
  readonly workloadsMs: number[];
  readonly nodeAddMs: number[];
}

type Env = Record<string, string | undefined>;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function tkube(env: Env, args: string[]): Promise<void> {
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

/** Every `app=web` pod Ready, its container started after `after` (ISO time). */
async function workloadsReady(env: Env, cluster: string, after: string): Promise<string> {
  for (;;) {
    const out = await execa(
      'kubectl',
      ['--context', `tkube-${cluster}`, 'get', 'pods', '-l', 'app=web', '-o', 'json'],
      { env, reject: false },
    );
    if (out.exitCode === 0) {
      const pods = (
        JSON.parse(out.stdout) as {
          items: {
            status: {
              conditions?: { type: string; status: string }[];
              containerStatuses?: { state?: { running?: { startedAt?: string } } }[];
            };
          }[];
        }
      ).items;
      const started = pods.map((pod) => pod.status.containerStatuses?.[0]?.state?.running?.startedAt ?? '');
      const ready = pods.every((pod) =>
        pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      if (pods.length === REPLICAS && ready && started.every((time) => time > after))
        return started.sort().at(-1)!;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function benchLifecycle(prefix: string, env: Env, rounds: number): Promise<LifecycleTimes> {
  const cluster = `${prefix}-life`;
  const times: LifecycleTimes = { stopMs: [], startMs: [], workloadsMs: [], nodeAddMs: [] };
  await buildBusyboxImage();
  await tkube(env, ['up', cluster, '--nodes', '3', '-q']);
  try {
    await tkube(env, ['load', 'image', BUSYBOX, '--name', cluster]);
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: REPLICAS,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [backendContainer()] } },
      },
    };
    await execa('kubectl', ['--context', `tkube-${cluster}`, 'apply', '-f', '-'], {
      env,
      input: JSON.stringify(deployment),
    });
    let lastStart = await workloadsReady(env, cluster, '');
    for (let i = 0; i < rounds; i++) {
      times.stopMs.push(await timed(() => tkube(env, ['stop', cluster, '-q'])));
      const started = performance.now();
      await tkube(env, ['start', cluster, '-q']);
      times.startMs.push(performance.now() - started);
      lastStart = await workloadsReady(env, cluster, lastStart);
      times.workloadsMs.push(performance.now() - started);
    }
    for (let i = 0; i < rounds; i++) {
      const name = `${cluster}-extra-${i}`;
      times.nodeAddMs.push(await timed(() => tkube(env, ['node', 'add', cluster, '--name', name, '-q'])));
      await tkube(env, ['node', 'remove', name, '--cluster', cluster, '--force', '-q']);
    }
  } finally {
    await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  }
  return times;
}

export function printLifecycle(times: LifecycleTimes): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const spread = (values: number[]) =>
    `${s(percentile(values, 50))} (${s(Math.min(...values))}–${s(Math.max(...values))})`;
  printTable(`Stop / start, 3 nodes and ${REPLICAS} pods (median and range of ${times.stopMs.length})`, [
    ['measure', 'tkube', 'goal'],
    ['tkube stop', spread(times.stopMs), ''],
    ['tkube start, to every node Ready', spread(times.startMs), '≤ 5 s'],
    ['tkube start, to every pod Running again', spread(times.workloadsMs), '≤ 10 s'],
    ['tkube node add, to the node Ready', spread(times.nodeAddMs), ''],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-life-'));
  const env = isolatedCliEnv(dir);
  try {
    printLifecycle(
      await benchLifecycle(
        process.env.BENCH_UP_CLUSTER_PREFIX ?? 'bench',
        env,
        Number(process.env.BENCH_UP_ROUNDS ?? 3),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
