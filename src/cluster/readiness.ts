// Asks the apiserver's /readyz over HTTPS, trusting only the cluster CA (anonymous access to
// /readyz is allowed, as in Kubernetes).
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecureContext, type SecureContext } from 'node:tls';
import { LOOPBACK_ADDRESS } from './ports.js';

export interface ReadyzResult {
  ready: boolean;
  /** `ok`, the HTTP status and body, or the connection error. */
  detail: string;
}

const DEFAULT_PROBE_TIMEOUT_MS = 2_000;
/**
 * The control plane is often ready between two probes; a probe on the one kept connection, with
 * the one TLS context, costs either side well under a millisecond (at 20 ms the CLI's CPU grew).
 */
const POLL_INTERVAL_MS = 50;

/**
 * One GET /readyz: ready when the answer is 200. `trust` is the cluster CA as PEM, or a TLS
 * context made from it once (each context made anew parses the CA, and NODE_EXTRA_CA_CERTS's
 * certificates when set: milliseconds per probe). An `agent` may keep one connection for many probes.
 */
export function probeReadyz(
  apiPort: number,
  trust: string | SecureContext,
  timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
  agent?: Agent,
): Promise<ReadyzResult> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: LOOPBACK_ADDRESS,
        port: apiPort,
        path: '/readyz',
        method: 'GET',
        ...(typeof trust === 'string' ? { ca: trust } : { secureContext: trust }),
        timeout: timeoutMs,
        ...(agent && { agent }),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < 4096) body += chunk;
        });
        res.on('end', () => {
          const ready = res.statusCode === 200;
          resolve({ ready, detail: ready ? body.trim() || 'ok' : `HTTP ${res.statusCode}: ${body.trim()}` });
        });
        res.on('error', (error) => resolve({ ready: false, detail: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', (error) => resolve({ ready: false, detail: error.message }));
    req.end();
  });
}

export interface WaitForReadyzOptions {
  apiPort: number;
  caCertificatePem: string;
  timeoutMs: number;
  /** Stops waiting early: resolves to a reason when the server can no longer become ready. */
  givenUp?: Promise<string>;
  signal?: AbortSignal;
}

/** Polls /readyz until it answers 200; rejects with why it did not within the time limit. */
export async function waitForReadyz(options: WaitForReadyzOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let givenUpReason: string | undefined;
  void options.givenUp?.then((reason) => {
    givenUpReason = reason;
  });
  let last: ReadyzResult = { ready: false, detail: 'not asked yet' };
  // One connection for every probe: no TLS handshake on the starting control plane each time.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const trust = createSecureContext({ ca: options.caCertificatePem });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      if (givenUpReason !== undefined) throw new Error(givenUpReason);
      last = await probeReadyz(options.apiPort, trust, undefined, agent);
      if (last.ready) return;
      if (givenUpReason !== undefined) throw new Error(givenUpReason);
      if (Date.now() >= deadline) {
        throw new Error(
          `the API server was not ready after ${options.timeoutMs / 1000}s (last answer: ${last.detail})`,
        );
      }
      await sleep(POLL_INTERVAL_MS, undefined, { signal: options.signal });
    }
  } finally {
    agent.destroy();
  }
}

/**
 * Every control plane of `up --control-planes N` ready on its own port: the balanced endpoint
 * answers once the first is, and the supervisor starts the others after it.
 */
export async function waitForEachControlPlane(
  ports: readonly number[],
  options: Omit<WaitForReadyzOptions, 'apiPort'>,
): Promise<void> {
  await Promise.all(ports.map((apiPort) => waitForReadyz({ ...options, apiPort })));
}
