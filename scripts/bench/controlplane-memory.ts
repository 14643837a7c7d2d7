// Control-plane memory benchmark: `tsx scripts/bench/controlplane-memory.ts` (after npm run build).
// Starts the built control plane bundle alone (no nodes, or `--fake-nodes N` with BENCH_MEMORY_FAKE_NODES),
// as `tkube up` does (same node flags), lets it idle, and prints its resident memory: total, anonymous
// (heaps, malloc) and file-backed (the node binary, mapped code). Variants run alternately, each with
// its own environment (BENCH_MEMORY_VARIANTS='name=ENV=VALUE,ENV2=VALUE;name2=...'), so a knob such as
// MALLOC_ARENA_MAX is measured against the plain start in the same run. Every variant gets the
// control plane's malloc settings as `tkube up` passes them; `ENV=` (empty) in a variant unsets one.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTROL_PLANE_NODE_FLAGS, controlPlaneEnvironment } from '../../src/cluster/controlplane-process.js';
import { percentile, printTable } from './report.js';

const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 3);
/** How long the control plane idles before it is measured (leases, caches settled). */
const IDLE_MS = Number(process.env.BENCH_MEMORY_IDLE_MS ?? 20_000);
const FAKE_NODES = Number(process.env.BENCH_MEMORY_FAKE_NODES ?? 0);
const bundle = fileURLToPath(new URL('../../dist/controlplane-bundle/main.js', import.meta.url));

interface Variant {
  readonly name: string;
  readonly env: Record<string, string>;
}

function variantsFrom(spec: string | undefined): Variant[] {
  const variants: Variant[] = [{ name: 'plain', env: {} }];
  for (const part of (spec ?? '').split(';').filter(Boolean)) {
    const [name, settings = ''] = part.split(/=(.*)/s);
    const env: Record<string, string> = {};
    for (const setting of settings.split(',').filter(Boolean)) {
      const [key, value = ''] = setting.split(/=(.*)/s);
      env[key!] = value;
    }
    variants.push({ name: name!, env });
  }
  return variants;
}

interface Memory {
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly cpuMs: number;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    rss: kib('VmRSS'),
    anon: kib('RssAnon'),
    file: kib('RssFile'),
    cpuMs: (Number(fields[11]) + Number(fields[12])) * 10,
  };
}

/** Starts one control plane, waits until it serves, idles, measures, stops it. */
async function measure(variant: Variant): Promise<Memory> {
  const stateDir = mkdtempSync(join(tmpdir(), 'tkube-bench-memory-'));
  // NODE_FLAGS in a variant replaces the node flags `tkube up` uses (space-separated).
  const { NODE_FLAGS: nodeFlags, ...env } = variant.env;
  const flags = nodeFlags === undefined ? CONTROL_PLANE_NODE_FLAGS : nodeFlags.split(' ').filter(Boolean);
  const args = [...flags, bundle, '--state-dir', stateDir, '--api-port', '0'];
  if (FAKE_NODES > 0) args.push('--fake-nodes', String(FAKE_NODES));
  const childEnv = { ...controlPlaneEnvironment(process.env), ...env };
  for (const [key, value] of Object.entries(env)) if (value === '') delete childEnv[key];
  const child = spawn(process.execPath, args, {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('control plane serving')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`control plane exited (${code}) before serving`)));
    });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return memoryOf(child.pid!);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const variants = variantsFrom(process.env.BENCH_MEMORY_VARIANTS);
const samples = new Map<string, Memory[]>(variants.map((variant) => [variant.name, []]));
for (let i = 0; i < ROUNDS; i++) {
  for (const variant of variants) samples.get(variant.name)!.push(await measure(variant));
}
const mib = (values: number[]) =>
  `${percentile(values, 50).toFixed(0)} MiB (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
printTable(
  `control plane alone, ${FAKE_NODES} fake nodes, idle ${IDLE_MS / 1000} s (median and range of ${ROUNDS})`,
  [
    ['variant', 'RSS', 'anonymous', 'file-backed', 'CPU to then'],
    ...variants.map((variant) => {
      const runs = samples.get(variant.name)!;
      return [
        `${variant.name} ${Object.entries(variant.env)
          .map(([key, value]) => `${key}=${value}`)
          .join(' ')}`,
        mib(runs.map((run) => run.rss)),
        mib(runs.map((run) => run.anon)),
        mib(runs.map((run) => run.file)),
        `${percentile(
          runs.map((run) => run.cpuMs),
          50,
        )} ms`,
      ];
    }),
  ],
);
