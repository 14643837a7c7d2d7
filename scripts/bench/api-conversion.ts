// Whether CRD conversion webhooks slowed the built-in path: `tsx scripts/bench/api-conversion.ts
// <baseline tree>` (both trees built). Starts this tree's control plane and the baseline's in turn
// (alternated, fresh state each round) and times ConfigMap creates, custom resource creates and
// gets (the bench CRD, strategy None) from 16 concurrent clients, with the control plane's CPU
// per operation. Prints medians and ranges of each build, then one JSON line.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CONFIG_MAPS, CUSTOM_RESOURCE_DEFINITIONS } from '../../src/client/resources.js';
import type { ApiObject, ResourceRef } from '../../src/client/types.js';
import {
  builtinControlPlaneCommand,
  CONTROL_PLANE_NODE_FLAGS,
} from '../../src/cluster/controlplane-process.js';
import { benchCrd, benchObject } from './custom-resources.js';
import { cpuSeconds, pool, startFakeCluster, until } from './fake-cluster.js';
import { percentile, printTable } from './report.js';

const CONCURRENCY = 16;
const OPERATIONS = Number(process.env.TKUBE_BENCH_OPERATIONS ?? 2000);
const ROUNDS = Number(process.env.TKUBE_BENCH_ROUNDS ?? 3);
const BENCH_OBJECTS: ResourceRef = {
  group: 'bench.tkube.dev',
  version: 'v1',
  resource: 'benchobjects',
  kind: 'BenchObject',
  namespaced: true,
};

interface Round {
  configMapCreatesPerSec: number;
  configMapCpuMsPerOp: number;
  crCreatesPerSec: number;
  crCpuMsPerOp: number;
  crGetsPerSec: number;
  crGetCpuMsPerOp: number;
  crGetP99Ms: number;
}

/** A bench object (JSON text) in the namespace `default`. */
function inDefault(text: string): ApiObject {
  const object = JSON.parse(text) as ApiObject;
  return { ...object, metadata: { ...object.metadata, namespace: 'default' } };
}

async function measure(
  pid: number,
  task: (i: number) => Promise<unknown>,
): Promise<{ perSec: number; cpuMsPerOp: number; p99: number }> {
  const latencies: number[] = [];
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  await pool(OPERATIONS, CONCURRENCY, async (i) => {
    const started = performance.now();
    await task(i);
    latencies.push(performance.now() - started);
  });
  const seconds = (performance.now() - t0) / 1000;
  return {
    perSec: OPERATIONS / seconds,
    cpuMsPerOp: ((cpuSeconds(pid) - cpu0) * 1000) / OPERATIONS,
    p99: percentile(latencies, 99),
  };
}

async function round(tree: string | undefined): Promise<Round> {
  const command = tree
    ? {
        file: process.execPath,
        args: [...CONTROL_PLANE_NODE_FLAGS, join(tree, 'dist/controlplane-bundle/main.js')],
      }
    : builtinControlPlaneCommand();
  const cluster = await startFakeCluster('conversion', 0, command);
  try {
    const { client, pid } = cluster;
    const configMaps = client.resource(CONFIG_MAPS);
    const configMap = (name: string) => ({
      metadata: { name, namespace: 'default' },
      data: { key: 'x'.repeat(512) },
    });
    // Warm-up: JIT and caches, as the steady figures of bench:api.
    await pool(500, CONCURRENCY, (i) => configMaps.create(configMap(`warm-${i}`)));
    const cm = await measure(pid, (i) => configMaps.create(configMap(`cm-${i}`)));
    await client.resource(CUSTOM_RESOURCE_DEFINITIONS).create(JSON.parse(benchCrd()));
    const objects = client.resource(BENCH_OBJECTS);
    await until('the bench CRD served', () => objects.list('default').catch(() => undefined), 60_000);
    const cr = await measure(pid, (i) => objects.create(inDefault(benchObject(`cr-${i}`))));
    const gets = await measure(pid, (i) => objects.get('default', `cr-${i}`));
    return {
      configMapCreatesPerSec: cm.perSec,
      configMapCpuMsPerOp: cm.cpuMsPerOp,
      crCreatesPerSec: cr.perSec,
      crCpuMsPerOp: cr.cpuMsPerOp,
      crGetsPerSec: gets.perSec,
      crGetCpuMsPerOp: gets.cpuMsPerOp,
      crGetP99Ms: gets.p99,
    };
  } finally {
    await cluster.stop();
  }
}

const baseline = process.argv[2] ? resolve(process.argv[2]) : undefined;
if (!baseline || !existsSync(join(baseline, 'dist/controlplane-bundle/main.js'))) {
  throw new Error('usage: tsx scripts/bench/api-conversion.ts <baseline tree, built>');
}
const results: Record<'baseline' | 'current', Round[]> = { baseline: [], current: [] };
for (let i = 0; i < ROUNDS; i++) {
  results.baseline.push(await round(baseline));
  results.current.push(await round(undefined));
}
const summary = (rounds: Round[], key: keyof Round): string => {
  const values = rounds.map((r) => r[key]);
  return `${percentile(values, 50).toFixed(2)} (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
};
const keys: (keyof Round)[] = [
  'configMapCreatesPerSec',
  'configMapCpuMsPerOp',
  'crCreatesPerSec',
  'crCpuMsPerOp',
  'crGetsPerSec',
  'crGetCpuMsPerOp',
  'crGetP99Ms',
];
printTable(
  `conversion webhooks A/B: ${ROUNDS} alternated rounds of ${OPERATIONS} operations, ${CONCURRENCY} clients (median, range)`,
  keys.map((key) => [key, summary(results.current, key), `baseline ${summary(results.baseline, key)}`]),
);
console.log(
  JSON.stringify(
    Object.fromEntries(
      keys.map((key) => [
        key,
        {
          current: percentile(
            results.current.map((r) => r[key]),
            50,
          ),
          baseline: percentile(
            results.baseline.map((r) => r[key]),
            50,
          ),
        },
      ]),
    ),
  ),
);
