// httpGet probes as the kubelet runs them: GET with `User-Agent: kube-probe/<major.minor>` and
// `Accept: */*` unless the probe sets them, no keep-alive, no compression, TLS unverified; 2xx
// succeeds, a 3xx the probe stops at is a warning, anything else fails. Redirects are followed
// (at most 10) only while they stay on the same host.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dialErrorText } from '../../../api/go-net-errors.js';
import { KUBERNETES_MAJOR, KUBERNETES_MINOR } from '../../../api/version.js';
import type { ProbeOutcome } from './outcome.js';

export const PROBE_USER_AGENT = `kube-probe/${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}`;
/** The kubelet keeps at most this much of a response body as the probe's output. */
export const MAX_BODY_BYTES = 10 * 1024;
const MAX_REDIRECTS = 10;
const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

export interface HttpProbeTarget {
  readonly url: URL;
  /** Header name → values, in the probe's order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly timeoutMs: number;
}

/** Go's CanonicalMIMEHeaderKey: `x-custom-header` → `X-Custom-Header` (left alone if not a token). */
export function canonicalHeaderName(name: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return name;
  return name
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** The request headers: the probe's, plus User-Agent and Accept unless set (an empty Accept removes it). */
export function probeRequestHeaders(
  headers: ReadonlyArray<readonly [string, string]>,
): Record<string, string | string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of headers) {
    const key = canonicalHeaderName(name);
    out[key] = [...(out[key] ?? []), value];
  }
  if (!out['User-Agent']) out['User-Agent'] = [PROBE_USER_AGENT];
  if (!out.Accept) out.Accept = ['*/*'];
  else if (out.Accept[0] === '') delete out.Accept;
  out.Connection = ['close'];
  return Object.fromEntries(
    Object.entries(out).map(([name, values]) => [name, values.length === 1 ? values[0]! : values]),
  );
}

class ProbeTimeout extends Error {}

interface Response {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: Buffer;
}

function get(url: URL, headers: Record<string, string | string[]>, signal: AbortSignal): Promise<Response> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: 'GET', headers, signal, rejectUnauthorized: false, agent: false },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_BODY_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
          size += Math.min(chunk.length, MAX_BODY_BYTES - size);
          // The rest is not needed: stop reading once the output is full.
          if (size >= MAX_BODY_BYTES) {
            res.destroy();
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              body: Buffer.concat(chunks),
            });
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function hostPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

export async function runHttpProbe(target: HttpProbeTarget): Promise<ProbeOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ProbeTimeout()), target.timeoutMs);
  const headers = probeRequestHeaders(target.headers);
  let url = target.url;
  // Go prints the URL as built, with its port even when it is the scheme's default.
  let urlText = `${url.protocol}//${hostPort(url)}${url.pathname}${url.search}`;
  try {
    for (let redirects = 0; ; redirects++) {
      let response: Response;
      try {
        response = await get(url, headers, controller.signal);
      } catch (error) {
        const cause = controller.signal.aborted
          ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
          : dialErrorText(hostPort(url), error);
        return { result: 'failure', output: `Get "${urlText}": ${cause}` };
      }
      if (REDIRECT_CODES.has(response.status) && response.location) {
        const next = new URL(response.location, url);
        if (next.hostname === target.url.hostname) {
          if (redirects + 1 >= MAX_REDIRECTS) {
            return {
              result: 'failure',
              output: `Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects`,
            };
          }
          // A custom Host header only survives a redirect within the same authority.
          if (next.host !== url.host) delete headers.Host;
          url = next;
          urlText = next.href;
          continue;
        }
      }
      const body = response.body.toString('utf8');
      if (response.status >= 200 && response.status < 400) {
        if (response.status >= 300) {
          return { result: 'warning', output: `Probe terminated redirects, Response body: ${body}` };
        }
        return { result: 'success', output: body };
      }
      return { result: 'failure', output: `HTTP probe failed with statuscode: ${response.status}` };
    }
  } finally {
    clearTimeout(timer);
  }
}
