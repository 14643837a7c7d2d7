// Admission webhooks in `npm run bench:api`: pod creates/s with no webhook against one mutating
// (JSONPatch adding a label) and one validating webhook, both URL webhooks served over TLS by a
// child process (webhook-server-process.ts), in the same run; the added latency is the difference
// of the two runs' p50/p99.
import { spawn } from 'node:child_process';
import type { ClientHttp2Session } from 'node:http2';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from './custom-resources.js';
import { percentile } from './report.js';

type Timed = (
  sessions: ClientHttp2Session[],
  total: number,
  make: (i: number) => [string, string, string?],
  expected: number,
) => Promise<{ perSecond: number; p50: number; p99: number }>;

export interface WebhookBenchResult {
  /** Throughput with 16 concurrent clients. */
  readonly without: { perSecond: number; p50: number; p99: number };
  readonly withWebhooks: { perSecond: number; p50: number; p99: number };
  /** One client, creates alternating between the two namespaces: the latency the webhooks add. */
  readonly sequential: { withoutP50: number; withoutP99: number; withP50: number; withP99: number };
}

const SEQUENTIAL_PODS = 1000;

const PODS = 3000;

const pod = (name: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'busybox:bench' }] },
  });

async function namespace(session: ClientHttp2Session, request: Request, name: string, labels = {}) {
  await request(session, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name, labels } }));
  // The ServiceAccount admission plugin needs the namespace's default account.
  while ((await request(session, 'GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status !== 200)
    await sleep(20);
}

export async function benchWebhooks(
  sessions: ClientHttp2Session[],
  request: Request,
  timed: Timed,
): Promise<WebhookBenchResult> {
  const admin = sessions[0]!;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'webhook-server-process.ts')],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  try {
    const server = await new Promise<{ port: number; caBundle: string }>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(JSON.parse(output));
      });
      child.on('exit', (code) => reject(new Error(`webhook server exited (${code})`)));
    });
    const hook = (name: string, path: string) => ({
      name,
      clientConfig: { url: `https://127.0.0.1:${server.port}${path}`, caBundle: server.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      namespaceSelector: { matchLabels: { 'bench-webhooks': 'on' } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    });
    const admission = '/apis/admissionregistration.k8s.io/v1';
    await request(
      admin,
      'POST',
      `${admission}/mutatingwebhookconfigurations`,
      JSON.stringify({ metadata: { name: 'bench' }, webhooks: [hook('mutate.bench.tkube.dev', '/mutate')] }),
    );
    await request(
      admin,
      'POST',
      `${admission}/validatingwebhookconfigurations`,
      JSON.stringify({
        metadata: { name: 'bench' },
        webhooks: [hook('validate.bench.tkube.dev', '/validate')],
      }),
    );
    await namespace(admin, request, 'bench-plain');
    await namespace(admin, request, 'bench-hooked', { 'bench-webhooks': 'on' });
    // Warm both paths (JIT, TLS connections to the webhook) before measuring.
    await timed(sessions, 500, (i) => ['POST', '/api/v1/namespaces/bench-plain/pods', pod(`warm-${i}`)], 201);
    await timed(
      sessions,
      500,
      (i) => ['POST', '/api/v1/namespaces/bench-hooked/pods', pod(`warm-${i}`)],
      201,
    );
    const warmed = await request(admin, 'GET', '/api/v1/namespaces/bench-hooked/pods/warm-0');
    if (!warmed.body.includes('"mutated":"true"')) throw new Error('the mutating webhook was not called');
    const without = await timed(
      sessions,
      PODS,
      (i) => ['POST', '/api/v1/namespaces/bench-plain/pods', pod(`pod-${i}`)],
      201,
    );
    const withWebhooks = await timed(
      sessions,
      PODS,
      (i) => ['POST', '/api/v1/namespaces/bench-hooked/pods', pod(`pod-${i}`)],
      201,
    );
    const plain: number[] = [];
    const hooked: number[] = [];
    for (let i = 0; i < SEQUENTIAL_PODS; i++) {
      for (const [namespace, latencies] of [
        ['bench-plain', plain],
        ['bench-hooked', hooked],
      ] as const) {
        const started = performance.now();
        const response = await request(
          admin,
          'POST',
          `/api/v1/namespaces/${namespace}/pods`,
          pod(`seq-${i}`),
        );
        latencies.push(performance.now() - started);
        if (response.status !== 201) throw new Error(`pod create: ${response.status} ${response.body}`);
      }
    }
    const sequential = {
      withoutP50: percentile(plain, 50),
      withoutP99: percentile(plain, 99),
      withP50: percentile(hooked, 50),
      withP99: percentile(hooked, 99),
    };
    return { without, withWebhooks, sequential };
  } finally {
    child.stdin!.end();
  }
}
