// A client that floods the apiserver with ConfigMap creates and lists as fast as its streams
// allow, for a bounded time: the "buggy operator" of the overload test and bench.
import { type ClientHttp2Session, connect } from 'node:http2';
import { performance } from 'node:perf_hooks';

export interface FloodOptions {
  readonly origin: string;
  readonly ca: string;
  /** The flooder's bearer token (a ServiceAccount's, so it is classified as one). */
  readonly token: string;
  readonly namespace: string;
  /** Requests in flight at once, over `sessions` HTTP/2 connections. */
  readonly concurrency: number;
  readonly sessions?: number;
  readonly durationMs: number;
}

export interface FloodResult {
  readonly requests: number;
  readonly byStatus: Readonly<Record<number, number>>;
  /** One 429 as received: its headers and body. */
  readonly sample429?: { readonly headers: Record<string, string>; readonly body: string };
}

export async function flood(options: FloodOptions): Promise<FloodResult> {
  const sessions: ClientHttp2Session[] = Array.from({ length: options.sessions ?? 4 }, () =>
    connect(options.origin, { ca: options.ca }),
  );
  for (const session of sessions) session.on('error', () => {});
  const byStatus: Record<number, number> = {};
  let requests = 0;
  let sample429: FloodResult['sample429'];
  const deadline = performance.now() + options.durationMs;
  const base = `/api/v1/namespaces/${options.namespace}/configmaps`;
  const send = (session: ClientHttp2Session, method: string, path: string, body?: string) =>
    new Promise<void>((resolve) => {
      const stream = session.request({
        ':method': method,
        ':path': path,
        authorization: `Bearer ${options.token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      });
      let status = 0;
      let headers: Record<string, string> = {};
      let text = '';
      stream.setEncoding('utf8');
      stream.on('response', (received) => {
        status = Number(received[':status']);
        headers = Object.fromEntries(Object.entries(received).map(([key, value]) => [key, String(value)]));
      });
      stream.on('data', (chunk: string) => {
        if (status === 429) text += chunk;
      });
      const done = () => {
        requests++;
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        if (status === 429 && !sample429) sample429 = { headers, body: text };
        resolve();
      };
      stream.on('end', done);
      stream.on('error', done);
      stream.end(body);
    });
  let serial = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      const session = sessions[worker % sessions.length]!;
      while (performance.now() < deadline) {
        const name = `flood-${worker}-${serial++}`;
        await send(
          session,
          'POST',
          base,
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name },
            data: { key: 'x'.repeat(512) },
          }),
        );
        await send(session, 'GET', `${base}?limit=500`);
      }
    }),
  );
  for (const session of sessions) session.close();
  return { requests, byStatus, ...(sample429 ? { sample429 } : {}) };
}
