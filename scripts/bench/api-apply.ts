// The server-side apply part of `npm run bench:api`: Deployment applies (PATCH
// application/apply-patch+yaml, one field manager) against plain updates (PUT) of the same
// Deployments' shape in the same run, each changing the image. Rates and latency percentiles.
import type { ClientHttp2Session } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { percentile } from './report.js';

type Request = (
  session: ClientHttp2Session,
  method: string,
  path: string,
  body?: string,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: string }>;

export interface Rate {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

export interface ApplyFigures {
  readonly updates: Rate;
  readonly applies: Rate;
}

const NAMESPACE = 'apply-bench';
const OBJECTS = 100;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;
const APPLY_HEADERS = { 'content-type': 'application/apply-patch+yaml' };

function deployment(name: string, image: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE, labels: { app: name } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'web',
              image,
              ports: [{ containerPort: 80, name: 'http' }],
              resources: { requests: { cpu: '100m', memory: '64Mi' } },
              env: [{ name: 'MODE', value: 'bench' }],
            },
          ],
        },
      },
    },
  });
}

// Each request goes to object i % OBJECTS, so the concurrent ones never share an object.
async function measure(
  sessions: ClientHttp2Session[],
  total: number,
  send: (session: ClientHttp2Session, i: number) => Promise<{ status: number; body: string }>,
): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    sessions.map(async (session) => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        const response = await send(session, i);
        latencies.push(performance.now() - t0);
        if (response.status !== 200 && response.status !== 201)
          throw new Error(`request ${i}: ${response.status} ${response.body}`);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies };
}

interface Sample {
  readonly seconds: number;
  readonly latencies: readonly number[];
}

function rateOf(samples: readonly Sample[]): Rate {
  const latencies = samples.flatMap((sample) => sample.latencies);
  const seconds = samples.reduce((sum, sample) => sum + sample.seconds, 0);
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** Creates 100 Deployments for each path, then times `total` updates and `total` applies. */
export async function applyAgainstUpdate(
  sessions: ClientHttp2Session[],
  request: Request,
  total = 3000,
): Promise<ApplyFigures> {
  const first = sessions[0] as ClientHttp2Session;
  await request(first, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: NAMESPACE } }));
  const apply = (session: ClientHttp2Session, name: string, image: string) =>
    request(
      session,
      'PATCH',
      `${DEPLOYMENTS}/${name}?fieldManager=bench-apply`,
      deployment(name, image),
      APPLY_HEADERS,
    );
  await measure(sessions, OBJECTS, (session, i) =>
    request(session, 'POST', DEPLOYMENTS, deployment(`update-${i}`, 'nginx:0')),
  );
  await measure(sessions, OBJECTS, (session, i) => apply(session, `apply-${i}`, 'nginx:0'));
  // Warm both paths once, then measure them alternately in halves, so drift hits both alike.
  const update = (session: ClientHttp2Session, i: number) =>
    request(
      session,
      'PUT',
      `${DEPLOYMENTS}/update-${i % OBJECTS}`,
      deployment(`update-${i % OBJECTS}`, `nginx:${i + 1}`),
    );
  const applyNth = (session: ClientHttp2Session, i: number) =>
    apply(session, `apply-${i % OBJECTS}`, `nginx:${i + 1}`);
  await measure(sessions, OBJECTS * 2, update);
  await measure(sessions, OBJECTS * 2, applyNth);
  const half = Math.floor(total / 2);
  const updates = [await measure(sessions, half, update)];
  const applies = [await measure(sessions, half, applyNth)];
  updates.push(await measure(sessions, half, (session, i) => update(session, i + half)));
  applies.push(await measure(sessions, half, (session, i) => applyNth(session, i + half)));
  return { updates: rateOf(updates), applies: rateOf(applies) };
}
