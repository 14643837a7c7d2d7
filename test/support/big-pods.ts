// The big pods of issue 21 (many containers, many env vars) as JSON bodies, and a raw JSON request
// over a given HTTPS agent answering its status: shared by the big-object test and benchmark.
import { type Agent, request as httpsRequest } from 'node:https';

const podBody = (name: string, spec: object) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });

/** A pod of `count` busybox containers named c0, c1, … */
export const podWithContainers = (name: string, count: number) =>
  podBody(name, {
    containers: Array.from({ length: count }, (_, i) => ({ name: `c${i}`, image: 'busybox' })),
  });

/** A pod of one container with `count` env vars VAR_i=value-i. */
export const podWithEnv = (name: string, count: number) =>
  podBody(name, {
    containers: [
      {
        name: 'c',
        image: 'busybox',
        env: Array.from({ length: count }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
      },
    ],
  });

export interface JsonTarget {
  readonly host: string;
  readonly port: number | string;
  readonly agent: Agent;
}

/** Sends `body` as JSON; resolves to the response's status once its body is read. */
export function requestStatus(
  target: JsonTarget,
  method: string,
  path: string,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: target.host,
        port: target.port,
        method,
        path,
        agent: target.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
