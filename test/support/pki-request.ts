// One HTTP/1.1 request to an in-process apiserver as the cluster admin of a state directory's PKI
// (or whom `headers` impersonate), on a fresh connection: for tests that check proxied answers.
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';

export interface Answer {
  code: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function adminRequest(
  port: number,
  pkiDir: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const read = (name: string) => readFileSync(join(pkiDir, name), 'utf8');
  return new Promise<Answer>((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers,
        ca: read('ca.crt'),
        cert: read('admin.crt'),
        key: read('admin.key'),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            code: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
