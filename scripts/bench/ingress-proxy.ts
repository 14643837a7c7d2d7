// Ingress proxy micro-benchmark, no cluster (`tsx scripts/bench/ingress-proxy.ts`): the agent's
// ingress data plane (src/agent/ingress/proxy-server.ts) run in this process in front of a local
// HTTP backend (a child process), loaded by the HTTP load generator bench:network uses (a child
// process; a new connection per request, a fixed number in flight). Beside it, in the same
// alternating rounds: the backend reached directly, and the floor of any proxy on this path, a
// trivial Node.js TCP pass-through (accept, connect, pipe both ways). Prints requests/s, p50 and
// this process's CPU µs per request. With INGRESS_BENCH_BASELINE set to a directory holding another
// commit's src/ (`git archive <commit> src | tar -x -C <dir>`), that commit's proxy is measured too
// (A/B in one run).
// INGRESS_BENCH_ROUNDS, INGRESS_BENCH_SECONDS, INGRESS_BENCH_CONCURRENCY change the run's shape;
// INGRESS_BENCH_KEEP_ALIVE=1 keeps each in-flight slot's connection (as wrk) instead.
import { type ChildProcess, spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultSecureContext } from '../../src/agent/ingress/certificates.js';
import { HTTP_LOAD_SCRIPT, type HttpLoadResult } from './node-script-pod.js';
import { percentile, printTable } from './report.js';

const ROUNDS = Number(process.env.INGRESS_BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.INGRESS_BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.INGRESS_BENCH_CONCURRENCY ?? 8);
/** INGRESS_BENCH_KEEP_ALIVE=1: each in-flight slot keeps its connection (as wrk); a new one per request otherwise. */
const KEEP_ALIVE = process.env.INGRESS_BENCH_KEEP_ALIVE === '1';
const baselineDir = process.env.INGRESS_BENCH_BASELINE;
const HOST = 'bench.ingress.test';

/** A small keep-alive HTTP server answering 200 with a short body, as the bench's nginx-like service. */
const BACKEND_SCRIPT = `
const http = require('node:http');
const body = Buffer.from('ok\\n');
const server = http.createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port));
`;

/** The part of IngressProxy's surface the benchmark drives, so another build's class fits too. */
interface ProxyUnderTest {
  listen(): Promise<{ http: number; https: number }>;
  close(): Promise<void>;
}
type ProxyClass = new (options: {
  bindAddress: string;
  httpPort: number;
  httpsPort: number;
  resolve(host: string, path: string): unknown;
  secureContext(servername: string): undefined;
  defaultContext: ReturnType<typeof defaultSecureContext>;
}) => ProxyUnderTest;

interface Target {
  readonly label: string;
  readonly port: number;
  readonly rps: number[];
  readonly p50: number[];
  readonly cpuMicros: number[];
  errors: number;
}

function childNode(script: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['-e', script, '--', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The first stdout line of a child starting with `prefix`, without the prefix. */
function lineOf(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((candidate) => candidate.startsWith(prefix));
      if (line !== undefined) resolve(line.slice(prefix.length));
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before printing ${prefix}`)));
  });
}

/** The floor: bytes copied between the client's connection and a new one to the backend. */
function passThrough(backendPort: number): Promise<{ server: net.Server; port: number }> {
  const server = net.createServer((client) => {
    const backend = net.connect(backendPort, '127.0.0.1');
    client.pipe(backend).pipe(client);
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })),
  );
}

async function loadProxy(
  moduleUrl: string,
  backendPort: number,
): Promise<{ proxy: ProxyUnderTest; port: number }> {
  const { IngressProxy } = (await import(moduleUrl)) as { IngressProxy: ProxyClass };
  const proxy = new IngressProxy({
    bindAddress: '127.0.0.1',
    httpPort: 0,
    httpsPort: 0,
    resolve: (host) =>
      host.startsWith(HOST)
        ? { kind: 'backend', host: '127.0.0.1', port: backendPort }
        : { kind: 'not-found' },
    secureContext: () => undefined,
    defaultContext: defaultSecureContext(),
  });
  return { proxy, port: (await proxy.listen()).http };
}

async function measure(target: Target): Promise<void> {
  const load = childNode(HTTP_LOAD_SCRIPT, [
    '127.0.0.1',
    String(target.port),
    String(SECONDS),
    String(CONCURRENCY),
    HOST,
    ...(KEEP_ALIVE ? ['keep-alive'] : []),
  ]);
  const cpuBefore = process.cpuUsage();
  const result = JSON.parse(await lineOf(load, 'RESULT ')) as HttpLoadResult;
  const cpu = process.cpuUsage(cpuBefore);
  target.rps.push(result.rps);
  target.p50.push(result.p50);
  target.cpuMicros.push((cpu.user + cpu.system) / result.ok);
  target.errors += result.errors;
}

const backend = childNode(BACKEND_SCRIPT, []);
const backendPort = Number(await lineOf(backend, 'PORT '));
const floor = await passThrough(backendPort);
const current = await loadProxy(
  pathToFileURL(join(import.meta.dirname, '../../src/agent/ingress/proxy-server.ts')).href,
  backendPort,
);
const baseline = baselineDir
  ? await loadProxy(pathToFileURL(join(baselineDir, 'src/agent/ingress/proxy-server.ts')).href, backendPort)
  : undefined;
const target = (label: string, port: number): Target => ({
  label,
  port,
  rps: [],
  p50: [],
  cpuMicros: [],
  errors: 0,
});
const targets = [
  target('backend directly', backendPort),
  target('TCP pass-through (floor)', floor.port),
  ...(baseline ? [target('ingress proxy, baseline (a)', baseline.port)] : []),
  target(baseline ? 'ingress proxy, this tree (b)' : 'ingress proxy', current.port),
];
for (let round = 0; round < ROUNDS; round++) {
  for (const each of targets) await measure(each);
}
backend.kill();
floor.server.close();
await current.proxy.close();
await baseline?.proxy.close();

const span = (values: readonly number[], digits: number) =>
  `${percentile(values, 50).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
const direct = percentile(targets[0]!.rps, 50);
printTable(
  `HTTP/1.1 through the ingress proxy in-process, a new client connection per request, ${CONCURRENCY} in flight, ${ROUNDS} alternating rounds × ${SECONDS} s (median, range)`,
  [
    ['target', 'requests/s', '% of direct', 'p50 ms', 'proxy process CPU µs/request', 'errors'],
    ...targets.map((each) => [
      each.label,
      span(each.rps, 0),
      `${((percentile(each.rps, 50) / direct) * 100).toFixed(1)} %`,
      span(each.p50, 2),
      each === targets[0] ? '—' : span(each.cpuMicros, 0),
      String(each.errors),
    ]),
  ],
);
if (baselineDir) console.log(`a = ${baselineDir}, b = this worktree; rounds alternate between them`);
