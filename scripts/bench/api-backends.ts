// ConfigMap creates through the API server on each datastore, side by side in one run
// (issue 30): SQLite (the default), PostgreSQL and etcd (private servers with their durable
// defaults), beside kube-apiserver-on-etcd's known figure for this machine class.
// Called from scripts/bench/api.ts; runs alone too: `tsx scripts/bench/api-backends.ts`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { builtinControlPlaneCommand } from '../../src/cluster/controlplane-process.js';
import { findFreePort } from '../../src/cluster/ports.js';
import { probeReadyz } from '../../src/cluster/readiness.js';
import { DATASTORE_ENDPOINT_ENV } from '../../src/controlplane/run.js';
import { ensureClusterPki } from '../../src/pki/cluster-pki.js';
import { etcdSkipReason, startEtcd } from '../../test/support/etcd-server.js';
import { postgresSkipReason, startPostgres } from '../../test/support/postgres-server.js';
import { percentile } from './report.js';

/** kube-apiserver on etcd, ConfigMap creates/s on this machine class (issue 30). */
export const KUBE_APISERVER_ON_ETCD_CREATES = 700;
const CREATES = 3000;
const CONCURRENCY = 16;

export interface ApiBackendFigures {
  createsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Control-plane CPU per create (user + system), microseconds. */
  cpuMicrosPerCreate: number;
  /** On etcd: the server's own CPU per create, its open watchers and Txn calls per create. */
  etcd?: { cpuMicrosPerCreate: number; watchers: number; txnsPerCreate: number };
}

/** The figures of etcd's /metrics that tell where a create's time goes (issue 30). */
interface EtcdMetrics {
  cpuMicros: number;
  watchers: number;
  txns: number;
}

async function etcdMetrics(endpoint: string): Promise<EtcdMetrics> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  const value = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    cpuMicros: value(/^process_cpu_seconds_total /) * 1e6,
    watchers: value(/^etcd_debugging_mvcc_watcher_total /),
    txns: value(/^grpc_server_handled_total\{.*grpc_method="Txn"/),
  };
}

/** One control plane on `endpoint` (a fresh state directory): CREATES ConfigMaps, 16 in flight. */
async function measure(endpoint: string, etcdEndpoint?: string): Promise<ApiBackendFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-api-ds-'));
  const pki = await ensureClusterPki(join(dir, 'pki'));
  const port = await findFreePort();
  const command = builtinControlPlaneCommand();
  const child = spawn(command.file, [...command.args, '--state-dir', dir, '--api-port', String(port)], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, [DATASTORE_ENDPOINT_ENV]: endpoint },
  });
  try {
    while (!(await probeReadyz(port, pki.ca.certificatePem, 1000)).ready) {
      if (child.exitCode !== null) throw new Error(`control plane on ${endpoint} exited (${child.exitCode})`);
      await sleep(50);
    }
    const credentials = {
      ca: pki.ca.certificatePem,
      cert: pki.admin.certificatePem,
      key: pki.admin.privateKeyPem,
    };
    const sessions = Array.from({ length: CONCURRENCY }, () =>
      connect(`https://127.0.0.1:${port}`, credentials),
    );
    const cpuBefore = await controlPlaneCpuMicros(child.pid!);
    const etcdBefore = etcdEndpoint === undefined ? undefined : await etcdMetrics(etcdEndpoint);
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      sessions.map(async (session) => {
        while (next < CREATES) {
          const body = JSON.stringify({ metadata: { name: `cm-${next++}` }, data: { key: 'x'.repeat(512) } });
          const t0 = performance.now();
          const status = await new Promise<number>((resolve, reject) => {
            const stream = session.request({
              ':method': 'POST',
              ':path': '/api/v1/namespaces/default/configmaps',
              'content-type': 'application/json',
            });
            let code = 0;
            stream.on('response', (headers) => {
              code = Number(headers[':status']);
            });
            stream.on('data', () => {});
            stream.on('end', () => resolve(code));
            stream.on('error', reject);
            stream.end(body);
          });
          latencies.push(performance.now() - t0);
          if (status !== 201) throw new Error(`create on ${endpoint}: ${status}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = (await controlPlaneCpuMicros(child.pid!)) - cpuBefore;
    const etcdAfter = etcdEndpoint === undefined ? undefined : await etcdMetrics(etcdEndpoint);
    for (const session of sessions) session.close();
    return {
      createsPerSecond: CREATES / seconds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      cpuMicrosPerCreate: cpu / CREATES,
      ...(etcdBefore &&
        etcdAfter && {
          etcd: {
            cpuMicrosPerCreate: (etcdAfter.cpuMicros - etcdBefore.cpuMicros) / CREATES,
            watchers: etcdAfter.watchers,
            txnsPerCreate: (etcdAfter.txns - etcdBefore.txns) / CREATES,
          },
        }),
    };
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** utime + stime of a process from /proc, in microseconds (Linux). */
async function controlPlaneCpuMicros(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Runs the creates on each datastore and prints them side by side; returns the figures. */
export async function compareApiBackends(): Promise<Record<string, ApiBackendFigures | string>> {
  const results: Record<string, ApiBackendFigures | string> = {};
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-api-sqlite-'));
  try {
    results.sqlite = await measure(`sqlite://${join(dir, 'state.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const postgresSkip = postgresSkipReason();
  if (postgresSkip) results.postgres = `skipped: ${postgresSkip}`;
  else {
    const server = await startPostgres({ durable: true });
    try {
      results.postgres = await measure(await server.createDatabase('bench_api'));
    } finally {
      server.stop();
    }
  }
  const etcdSkip = etcdSkipReason();
  if (etcdSkip) results.etcd = `skipped: ${etcdSkip}`;
  else {
    const server = await startEtcd();
    try {
      results.etcd = await measure(`etcd://${server.endpoint.slice('http://'.length)}`, server.endpoint);
    } finally {
      await server.stop();
    }
  }
  const backends = ['sqlite', 'postgres', 'etcd'];
  const rows: [string, (f: ApiBackendFigures) => string][] = [
    ['ConfigMap creates/s', (f) => f.createsPerSecond.toFixed(0)],
    ['  p50 / p99 ms', (f) => `${f.p50Ms.toFixed(1)}/${f.p99Ms.toFixed(0)}`],
    ['  control-plane CPU µs per create', (f) => f.cpuMicrosPerCreate.toFixed(0)],
  ];
  const cell = (name: string, format: (f: ApiBackendFigures) => string) => {
    const figures = results[name];
    return typeof figures === 'string' || figures === undefined ? '-' : format(figures);
  };
  console.log(
    `\nAPI server on each datastore (${CREATES} ConfigMaps of ~0.6 KiB, ${CONCURRENCY} in flight, x509 admin)`,
  );
  console.log(`${'figure'.padEnd(36)}${backends.map((name) => name.padStart(12)).join('')}`);
  for (const [label, format] of rows) {
    console.log(`${label.padEnd(36)}${backends.map((name) => cell(name, format).padStart(12)).join('')}`);
  }
  for (const name of backends) {
    const figures = results[name];
    if (typeof figures === 'string') console.log(`${name} ${figures}`);
  }
  const server = results.etcd;
  if (typeof server === 'object' && server.etcd) {
    console.log(
      `etcd server: ${server.etcd.cpuMicrosPerCreate.toFixed(0)} µs CPU per create, ${server.etcd.txnsPerCreate.toFixed(2)} Txn per create, ${server.etcd.watchers} watchers open (the control plane's informers and watch cache, not per create)`,
    );
  }
  const etcd = results.etcd;
  console.log(
    `reference: kube-apiserver on etcd ~${KUBE_APISERVER_ON_ETCD_CREATES} creates/s on this machine class; goal tkube on etcd ≥ ${2 * KUBE_APISERVER_ON_ETCD_CREATES}${
      typeof etcd === 'object'
        ? ` (now ${(etcd.createsPerSecond / KUBE_APISERVER_ON_ETCD_CREATES).toFixed(1)}×)`
        : ''
    }`,
  );
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await compareApiBackends();
}
