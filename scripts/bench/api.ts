// API benchmark: `npm run bench:api` (builds first). Starts a real control plane as a child
// process and drives it over HTTPS (HTTP/2, client certificates) from this process.
// Prints a table, then one JSON line.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type ClientHttp2Session, connect } from 'node:http2';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  builtinControlPlaneCommand,
  controlPlaneEnvironment,
} from '../../src/cluster/controlplane-process.js';
import { findFreePort } from '../../src/cluster/ports.js';
import { probeReadyz } from '../../src/cluster/readiness.js';
import { ensureClusterPki } from '../../src/pki/cluster-pki.js';
import { applyAgainstUpdate } from './api-apply.js';
import { compareApiBackends } from './api-backends.js';
import { overloadBench } from './api-overload.js';
import { benchWebhooks } from './api-webhooks.js';
import { BENCH_OBJECTS_PATH, benchObject, installBenchCrd } from './custom-resources.js';
import { percentile, printTable } from './report.js';

const CONCURRENCY = 16;
/** The control plane as `tkube up` starts it (the bundle, with its V8 flags). */
const controlPlane = builtinControlPlaneCommand();
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-api-'));

interface Credentials {
  ca: string;
  cert: string;
  key: string;
}

interface StartedControlPlane {
  child: ChildProcess;
  port: number;
  /** Spawn to the first 200 from /readyz. */
  readyMs: number;
  /** Spawn to the process saying it serves (the system namespaces' default accounts exist). */
  servingMs: number;
}

/** One connection for all probes: a TLS handshake per probe would slow the start it measures. */
const probeAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });

/** Starts the control plane on a free port and polls /readyz every 5 ms, as a client waiting for it would. */
async function startControlPlane(ca: string): Promise<StartedControlPlane> {
  const port = await findFreePort();
  const started = performance.now();
  const child = spawn(
    controlPlane.file,
    [...controlPlane.args, '--state-dir', dir, '--api-port', String(port)],
    { env: controlPlaneEnvironment(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  let exited = false;
  const serving = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/serving on port \d+/.test(output)) resolve(performance.now() - started);
    });
    child.on('exit', (code) => {
      exited = true;
      reject(new Error(`control plane exited (${code}): ${output}`));
    });
  });
  serving.catch(() => undefined);
  let readyMs: number | undefined;
  while (readyMs === undefined) {
    if (exited) await serving;
    if ((await probeReadyz(port, ca, 1000, probeAgent)).ready) readyMs = performance.now() - started;
    else await sleep(5);
  }
  const servingMs = await serving;
  probeAgent.destroy();
  return { child, port, readyMs, servingMs };
}

function request(
  session: ClientHttp2Session,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': method,
      ':path': path,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    });
    let status = 0;
    let data = '';
    stream.setEncoding('utf8');
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.on('data', (chunk: string) => {
      data += chunk;
    });
    stream.on('end', () => resolve({ status, body: data }));
    stream.on('error', reject);
    stream.end(body);
  });
}

async function timed(
  sessions: ClientHttp2Session[],
  total: number,
  make: (i: number) => [string, string, string?],
  expected: number,
  headers: Record<string, string> = {},
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    sessions.map(async (session) => {
      while (next < total) {
        const [method, path, body] = make(next++);
        const t0 = performance.now();
        const response = await request(session, method, path, body, headers);
        latencies.push(performance.now() - t0);
        if (response.status !== expected)
          throw new Error(`${method} ${path}: ${response.status} ${response.body}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const configMap = (name: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'x'.repeat(512) } });

async function watchLatency(
  session: ClientHttp2Session,
  writer: ClientHttp2Session,
  count: number,
): Promise<number[]> {
  const latencies: number[] = [];
  const sent = new Map<string, number>();
  const list = JSON.parse(
    (await request(session, 'GET', '/api/v1/namespaces/default/configmaps?limit=1')).body,
  ) as {
    metadata: { resourceVersion: string };
  };
  const stream = session.request({
    ':path': `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
  });
  stream.setEncoding('utf8');
  let buffer = '';
  const done = new Promise<void>((resolve) => {
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const event = JSON.parse(buffer.slice(0, newline)) as { object: { metadata: { name: string } } };
        buffer = buffer.slice(newline + 1);
        const t0 = sent.get(event.object.metadata.name);
        if (t0 !== undefined) latencies.push(performance.now() - t0);
        if (latencies.length >= count) resolve();
        newline = buffer.indexOf('\n');
      }
    });
  });
  for (let i = 0; i < count; i++) {
    const name = `watched-${i}`;
    sent.set(name, performance.now());
    await request(writer, 'POST', '/api/v1/namespaces/default/configmaps', configMap(name));
  }
  await done;
  stream.close();
  return latencies;
}

function metricSum(text: string, pattern: RegExp): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!pattern.test(line)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Creates as a service account limited by a namespaced Role, over bearer tokens: the time
 * the server spent in authorization against the time it spent serving those requests.
 */
async function authorizationShare(
  admin: ClientHttp2Session,
  origin: string,
  ca: string,
): Promise<{ perSecond: number; share: number }> {
  const json = (value: unknown) => JSON.stringify(value);
  await request(admin, 'POST', '/api/v1/namespaces', json({ metadata: { name: 'bench' } }));
  await request(
    admin,
    'POST',
    '/api/v1/namespaces/bench/serviceaccounts',
    json({ metadata: { name: 'writer' } }),
  );
  await request(
    admin,
    'POST',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/roles',
    json({
      metadata: { name: 'writer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }],
    }),
  );
  await request(
    admin,
    'POST',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings',
    json({
      metadata: { name: 'writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
      subjects: [{ kind: 'ServiceAccount', name: 'writer', namespace: 'bench' }],
    }),
  );
  const token = (
    JSON.parse(
      (
        await request(
          admin,
          'POST',
          '/api/v1/namespaces/bench/serviceaccounts/writer/token',
          json({ spec: {} }),
        )
      ).body,
    ) as { status: { token: string } }
  ).status.token;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sessions = Array.from({ length: CONCURRENCY }, () => connect(origin, { ca }));
  const scrape = async () => (await request(admin, 'GET', '/metrics')).body;
  const before = await scrape();
  const creates = await timed(
    sessions,
    5000,
    (i) => ['POST', '/api/v1/namespaces/bench/configmaps', configMap(`sa-${i}`)],
    201,
    { authorization: `Bearer ${token}` },
  );
  const after = await scrape();
  for (const session of sessions) session.close();
  const requestSeconds =
    /^apiserver_request_duration_seconds_sum\{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="namespace"/;
  const authzSeconds = /^tkube_authorization_duration_seconds_sum /;
  const served = metricSum(after, requestSeconds) - metricSum(before, requestSeconds);
  const authorizing = metricSum(after, authzSeconds) - metricSum(before, authzSeconds);
  return { perSecond: creates.perSecond, share: authorizing / served };
}

let child: ChildProcess | undefined;
try {
  const pki = await ensureClusterPki(join(dir, 'pki'));
  const credentials: Credentials = {
    ca: pki.ca.certificatePem,
    cert: pki.admin.certificatePem,
    key: pki.admin.privateKeyPem,
  };
  const started = await startControlPlane(pki.ca.certificatePem);
  child = started.child;
  const origin = `https://127.0.0.1:${started.port}`;
  const sessions = Array.from({ length: CONCURRENCY }, () => connect(origin, credentials));

  const creates = await timed(
    sessions,
    10_000,
    (i) => ['POST', '/api/v1/namespaces/default/configmaps', configMap(`cm-${i}`)],
    201,
  );
  // The same again once the server has run a while (JIT-compiled, caches warm): the steady
  // rate, which is what an apiserver benchmark such as kube-apiserver's ~700/s reports.
  await request(sessions[0]!, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'steady' } }));
  const steady = await timed(
    sessions,
    10_000,
    (i) => ['POST', '/api/v1/namespaces/steady/configmaps', configMap(`cm-${i}`)],
    201,
  );
  const gets = await timed(
    sessions,
    20_000,
    (i) => ['GET', `/api/v1/namespaces/default/configmaps/cm-${i % 5000}`],
    200,
  );
  // A namespace of exactly 5,000, listed whole (no limit), as `kubectl get cm -n list` reads it:
  // the controllers' kube-root-ca.crt and 4,999 of ours.
  await request(sessions[0]!, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'list' } }));
  while (
    (await request(sessions[0]!, 'GET', '/api/v1/namespaces/list/configmaps/kube-root-ca.crt')).status !== 200
  )
    await sleep(20);
  await timed(
    sessions,
    4999,
    (i) => ['POST', '/api/v1/namespaces/list/configmaps', configMap(`cm-${i}`)],
    201,
  );
  const listTimes: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const response = await request(sessions[0]!, 'GET', '/api/v1/namespaces/list/configmaps');
    listTimes.push(performance.now() - t0);
    const items = (JSON.parse(response.body) as { items: unknown[] }).items.length;
    if (items !== 5000) throw new Error(`listed ${items}`);
  }
  const crd = await installBenchCrd(sessions[0]!, request);
  const crCreates = await timed(
    sessions,
    10_000,
    (i) => ['POST', BENCH_OBJECTS_PATH, benchObject(`cr-${i}`)],
    201,
  );
  const watch = await watchLatency(sessions[0]!, sessions[1]!, 500);
  const authz = await authorizationShare(sessions[0]!, origin, credentials.ca);
  const webhooks = await benchWebhooks(sessions, request, timed);
  const applied = await applyAgainstUpdate(sessions, request);
  for (const session of sessions) session.close();

  const list5k = percentile(listTimes, 50);
  printTable(
    `tkube API server (${CONCURRENCY} concurrent HTTP/2 clients, x509 admin, ConfigMaps of ~0.6 KiB)`,
    [
      [
        'control plane start to /readyz (ms)',
        started.readyMs.toFixed(0),
        'target ≤ 500 ms (PKI exists, as after tkube up)',
      ],
      [
        '  … to default service accounts in system namespaces (ms)',
        started.servingMs.toFixed(0),
        'what `tkube up` waits for besides /readyz',
      ],
      ['ConfigMap creates/s, first 10,000 after start', creates.perSecond.toFixed(0), ''],
      ['  create latency p50 / p99 (ms)', `${creates.p50.toFixed(2)} / ${creates.p99.toFixed(2)}`, ''],
      [
        'ConfigMap creates/s, the next 10,000 (steady)',
        steady.perSecond.toFixed(0),
        'target ≥ 2,000/s; kube-apiserver+etcd ~700/s',
      ],
      [
        '  create latency p50 / p99 (ms)',
        `${steady.p50.toFixed(2)} / ${steady.p99.toFixed(2)}`,
        'target p99 ≤ 30 ms; kube ~50 ms',
      ],
      ['GETs/s', gets.perSecond.toFixed(0), ''],
      ['GET latency p50 / p99 (ms)', `${gets.p50.toFixed(2)} / ${gets.p99.toFixed(2)}`, ''],
      ['list 5,000 ConfigMaps (ms, median of 7)', list5k.toFixed(1), ''],
      [
        'watch delivery p50 / p99 (ms)',
        `${percentile(watch, 50).toFixed(2)} / ${percentile(watch, 99).toFixed(2)}`,
        'create sent → event received',
      ],
      [
        'CRD create → Established / served (ms)',
        `${crd.establishedMs.toFixed(1)} / ${crd.servedMs.toFixed(1)}`,
        'goal ≤ 100 ms',
      ],
      [
        'custom resource creates/s (20-field schema, 3 CEL rules)',
        crCreates.perSecond.toFixed(0),
        `${((crCreates.perSecond / steady.perSecond) * 100).toFixed(0)} % of steady ConfigMaps; goal ≥ 70 %`,
      ],
      ['  create latency p50 / p99 (ms)', `${crCreates.p50.toFixed(2)} / ${crCreates.p99.toFixed(2)}`, ''],
      ['creates/s as a service account (bearer token, Role)', authz.perSecond.toFixed(0), ''],
      ['authorization share of request time', `${(authz.share * 100).toFixed(2)} %`, 'target ≤ 10 %'],
      [
        'pod creates/s without / with 1 mutating + 1 validating webhook',
        `${webhooks.without.perSecond.toFixed(0)} / ${webhooks.withWebhooks.perSecond.toFixed(0)}`,
        '16 concurrent clients',
      ],
      [
        '  one client: create p50 / p99 without → with webhooks (ms)',
        `${webhooks.sequential.withoutP50.toFixed(2)} / ${webhooks.sequential.withoutP99.toFixed(2)} → ${webhooks.sequential.withP50.toFixed(2)} / ${webhooks.sequential.withP99.toFixed(2)}`,
        `added p50 ${(webhooks.sequential.withP50 - webhooks.sequential.withoutP50).toFixed(2)} ms, p99 ${(webhooks.sequential.withP99 - webhooks.sequential.withoutP99).toFixed(2)} ms; goal p99 added ≤ 5 ms`,
      ],
      [
        'Deployment updates/s (PUT) / applies/s (server-side apply)',
        `${applied.updates.perSecond.toFixed(0)} / ${applied.applies.perSecond.toFixed(0)}`,
        `applies ${((applied.applies.perSecond / applied.updates.perSecond) * 100).toFixed(0)} % of updates; goal ≥ 50 %`,
      ],
      [
        '  update / apply latency p99 (ms)',
        `${applied.updates.p99.toFixed(2)} / ${applied.applies.p99.toFixed(2)}`,
        `p50 ${applied.updates.p50.toFixed(2)} / ${applied.applies.p50.toFixed(2)}`,
      ],
    ],
  );
  console.log(
    JSON.stringify({
      readyzMs: Math.round(started.readyMs),
      defaultServiceAccountsMs: Math.round(started.servingMs),
      createsPerSec: Math.round(creates.perSecond),
      createP50Ms: Number(creates.p50.toFixed(3)),
      createP99Ms: Number(creates.p99.toFixed(3)),
      steadyCreatesPerSec: Math.round(steady.perSecond),
      steadyCreateP50Ms: Number(steady.p50.toFixed(3)),
      steadyCreateP99Ms: Number(steady.p99.toFixed(3)),
      getsPerSec: Math.round(gets.perSecond),
      getP99Ms: Number(gets.p99.toFixed(3)),
      list5kMs: Number(list5k.toFixed(2)),
      watchP50Ms: Number(percentile(watch, 50).toFixed(3)),
      watchP99Ms: Number(percentile(watch, 99).toFixed(3)),
      crdEstablishedMs: Number(crd.establishedMs.toFixed(1)),
      crdServedMs: Number(crd.servedMs.toFixed(1)),
      customResourceCreatesPerSec: Math.round(crCreates.perSecond),
      customResourceCreateP99Ms: Number(crCreates.p99.toFixed(3)),
      serviceAccountCreatesPerSec: Math.round(authz.perSecond),
      authorizationShare: Number(authz.share.toFixed(4)),
      podCreatesPerSecNoWebhooks: Math.round(webhooks.without.perSecond),
      podCreatesPerSecWebhooks: Math.round(webhooks.withWebhooks.perSecond),
      webhookAddedP50Ms: Number((webhooks.sequential.withP50 - webhooks.sequential.withoutP50).toFixed(3)),
      webhookAddedP99Ms: Number((webhooks.sequential.withP99 - webhooks.sequential.withoutP99).toFixed(3)),
      deploymentUpdatesPerSec: Math.round(applied.updates.perSecond),
      deploymentUpdateP99Ms: Number(applied.updates.p99.toFixed(3)),
      deploymentAppliesPerSec: Math.round(applied.applies.perSecond),
      deploymentApplyP99Ms: Number(applied.applies.p99.toFixed(3)),
    }),
  );
} finally {
  child?.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  rmSync(dir, { recursive: true, force: true });
}

// Its own cluster (fake nodes, controllers), after the control plane above has stopped.
console.log(JSON.stringify({ overload: await overloadBench() }));
console.log(JSON.stringify({ datastores: await compareApiBackends() }));
