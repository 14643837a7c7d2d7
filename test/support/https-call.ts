// A raw HTTPS request to an in-process control plane as the cluster admin (or anonymously): for
// tests that assert exact status codes, headers and bodies.
import { request as httpsRequest } from 'node:https';
import type { ClusterPki } from '../../src/pki/cluster-pki.js';

export interface CallResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

export type Call = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  anonymous?: boolean,
) => Promise<CallResponse>;

export function httpsCaller(port: () => number, pki: ClusterPki): Call {
  return (method, path, body, headers = {}, anonymous = false) => {
    const payload =
      body === undefined
        ? undefined
        : typeof body === 'string' || Buffer.isBuffer(body)
          ? body
          : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: port(),
          method,
          path,
          ca: pki.ca.certificatePem,
          ...(anonymous ? {} : { cert: pki.admin.certificatePem, key: pki.admin.privateKeyPem }),
          // Node's client sends DELETE bodies without a length unless told: set it, as client-go does.
          headers: {
            ...(payload !== undefined
              ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
              : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: () => JSON.parse(text),
            });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };
}
