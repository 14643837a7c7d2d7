// Security and protocol edges of issue 21 (items 3 to 5) over real HTTPS against an in-process
// control plane: connect subresources that never serve the Pod, resourceVersions as uint64,
// unframed bodies, empty names and `//` paths, and watch headers sent at once over HTTP/1.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { type ClusterPki, ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { type Call, type CallResponse, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
let pki: ClusterPki;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-sec-edges-'));

beforeAll(async () => {
  pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const PODS = '/api/v1/namespaces/default/pods';

/**
 * Writes `text` on a fresh HTTP/1.1 TLS connection as the admin; resolves with what came back once
 * `until` matches it, the server closes, or `waitMs` passes.
 */
function rawHttp1(text: string, until: RegExp, waitMs = 5_000): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let received = '';
    const socket = tlsConnect(
      {
        host: '127.0.0.1',
        port: controlPlane.port,
        ca: pki.ca.certificatePem,
        cert: pki.admin.certificatePem,
        key: pki.admin.privateKeyPem,
        ALPNProtocols: ['http/1.1'],
      },
      () => socket.write(text),
    );
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: received, ms: performance.now() - started });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (until.test(received)) done();
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}

/** After each batch: the control plane still answers /readyz at once. */
async function expectStillReady(): Promise<void> {
  const started = performance.now();
  const readyz = await call('GET', '/readyz');
  expect(readyz.status).toBe(200);
  expect(performance.now() - started).toBeLessThan(100);
}

function expectStatus(response: CallResponse, code: number, reason: string, message?: string): void {
  expect(response.status, response.text.slice(0, 500)).toBe(code);
  const status = response.json();
  expect(status).toMatchObject({ kind: 'Status', code, reason });
  if (message !== undefined) expect(status.message).toBe(message);
}

describe('security edges', () => {
  it('never serves the Pod from exec, attach or portforward without an upgrade', async () => {
    const secret = 'do-not-leak-0123456789';
    const created = await call('POST', PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'connect' },
      spec: { containers: [{ name: 'c', image: 'busybox', env: [{ name: 'TOKEN', value: secret }] }] },
    });
    expect(created.status, created.text).toBe(201);
    const queries = ['', '?command=ls&stdout=true', '?container=c&stdin=true&tty=true', '?ports=80'];
    for (const sub of ['exec', 'attach', 'portforward']) {
      for (const method of ['GET', 'POST']) {
        for (const query of queries) {
          const response = await call(method, `${PODS}/connect/${sub}${query}`);
          expect(response.text).not.toContain(secret);
          // Upstream checks the pod's placement before the upgrade (streamLocation, then the
          // upgrade-aware handler): this pod is not scheduled. A scheduled pod's plain request
          // gets "Upgrade request required" (test/unit/apiserver/pod-connect.test.ts).
          expectStatus(response, 400, 'BadRequest', 'pod connect does not have a host assigned');
        }
      }
      expectStatus(await call('GET', `${PODS}/absent/${sub}`), 404, 'NotFound', 'pods "absent" not found');
      const put = await call('PUT', `${PODS}/connect/${sub}`, {});
      expect(put.text).not.toContain(secret);
      expect(put.status).toBe(405);
    }
    await expectStillReady();
  });

  it('parses resourceVersions as uint64 with strconv.ParseUint text, on list, get-list and watch', async () => {
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    const bad: Array<[string, string]> = [
      ['abc', 'invalid syntax'],
      ['-1', 'invalid syntax'],
      ['+1', 'invalid syntax'],
      ['1.5', 'invalid syntax'],
      ['1e3', 'invalid syntax'],
      ['0x10', 'invalid syntax'],
      ['1_000', 'invalid syntax'],
      [' 1', 'invalid syntax'],
      ['18446744073709551616', 'value out of range'],
      ['99999999999999999999999', 'value out of range'],
    ];
    for (const [value, why] of bad) {
      const message = `invalid resource version: resourceVersion: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": ${why}`;
      const rv = encodeURIComponent(value);
      expectStatus(await call('GET', `${CONFIGMAPS}?resourceVersion=${rv}`), 400, 'BadRequest', message);
      expectStatus(
        await call('GET', `${CONFIGMAPS}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`),
        400,
        'BadRequest',
        message,
      );
      expectStatus(
        await call('GET', `${CONFIGMAPS}?watch=true&resourceVersion=${rv}`),
        400,
        'BadRequest',
        message,
      );
    }
    // The largest uint64 parses: it is only in the future (and 2^53 + 1 is not rounded to 2^53).
    for (const value of ['18446744073709551615', '9007199254740993']) {
      const response = await call('GET', `${CONFIGMAPS}?resourceVersion=${value}`);
      expectStatus(response, 504, 'Timeout');
      expect(response.json().message).toMatch(
        new RegExp(`^Too large resource version: ${value}, current: \\d+$`),
      );
    }
    // Leading zeros are digits too, as ParseUint reads them.
    const list = await call('GET', `${CONFIGMAPS}?resourceVersion=0001`);
    expect(list.status, list.text).toBe(200);
    // resourceVersionMatch without a resourceVersion is refused before the value is parsed.
    expectStatus(await call('GET', `${CONFIGMAPS}?resourceVersionMatch=Exact`), 422, 'Invalid');
    await expectStillReady();
  });

  it('answers a request whose body has no framing, then refuses the leftover bytes, as Go does', async () => {
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    for (const name of ['unframed-a', 'unframed-b']) {
      const created = await call('POST', CONFIGMAPS, { metadata: { name, labels: { unframed: 'yes' } } });
      expect(created.status, created.text).toBe(201);
    }
    // No Content-Length and no chunking: the DELETE has no body; what follows is not a request.
    const body = '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}';
    const { text } = await rawHttp1(
      `DELETE ${CONFIGMAPS}?labelSelector=unframed%3Dyes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n${body}`,
      /HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/,
    );
    // The request that ran is answered with its own result before the 400 for the rest.
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('"kind":"ConfigMapList"');
    expect(text).toContain('"name":"unframed-a"');
    expect(text.indexOf('HTTP/1.1 400 Bad Request')).toBeGreaterThan(text.indexOf('unframed-b'));
    const after = await call('GET', `${CONFIGMAPS}?labelSelector=unframed%3Dyes`);
    expect(after.json().items).toEqual([]);
    // A GET likewise: its answer, then the 400.
    const got = await rawHttp1(
      `GET ${CONFIGMAPS} HTTP/1.1\r\nHost: x\r\n\r\n{"x":1}`,
      /HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/,
    );
    expect(got.text).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*"kind":"ConfigMapList"[\s\S]*HTTP\/1\.1 400 Bad Request/,
    );
    await expectStillReady();
  });

  it('never acts on the collection for an empty name or a // path', async () => {
    const NS = '/api/v1/namespaces/default';
    const created = await call('POST', `${NS}/configmaps`, { metadata: { name: 'keep-me' } });
    expect(created.status, created.text).toBe(201);
    const NAME_REQUIRED: [number, string, string] = [400, 'BadRequest', 'name parameter required.'];
    const NOT_FOUND: [number, string, string] = [
      404,
      'NotFound',
      'the server could not find the requested resource',
    ];
    const cases: Array<[string, string, [number, string, string]]> = [
      ['DELETE', `${NS}/configmaps/`, NAME_REQUIRED],
      ['GET', `${NS}/configmaps/`, NAME_REQUIRED],
      ['GET', `${NS}/configmaps/?watch=true`, NAME_REQUIRED],
      ['PUT', `${NS}/configmaps/`, NAME_REQUIRED],
      ['PATCH', `${NS}/configmaps/`, NAME_REQUIRED],
      ['DELETE', `${NS}/configmaps//`, NAME_REQUIRED],
      ['GET', `${NS}/pods//status`, NAME_REQUIRED],
      ['DELETE', '/api/v1/namespaces/', NAME_REQUIRED],
      ['DELETE', '/apis/apps/v1/namespaces/default/deployments/', NAME_REQUIRED],
      [
        'POST',
        `${NS}/configmaps/`,
        [405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
      ],
      ['DELETE', `${NS}//configmaps`, NOT_FOUND],
      ['DELETE', '/api/v1/namespaces//configmaps', NOT_FOUND],
      ['DELETE', `//api/v1/namespaces/default/configmaps`, NOT_FOUND],
      ['DELETE', '/api/v1//namespaces/default/configmaps', NOT_FOUND],
      ['DELETE', '/apis//apps/v1/namespaces/default/deployments', NOT_FOUND],
      ['GET', `${NS}/configmaps//keep-me`, NOT_FOUND],
    ];
    for (const [method, path, [code, reason, message]] of cases) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { metadata: { name: 'keep-me' } };
      const headers = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : undefined;
      const response = await call(method, path, body, headers);
      expect(response.status, `${method} ${path}: ${response.text.slice(0, 300)}`).toBe(code);
      expectStatus(response, code, reason, message);
    }
    expect((await call('GET', `${NS}/configmaps/keep-me`)).status).toBe(200);
    await expectStillReady();
  });

  it('sends watch headers at once over HTTP/1.1, before any event', async () => {
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    const list = await call('GET', CONFIGMAPS);
    const rv = (list.json().metadata as { resourceVersion: string }).resourceVersion;
    for (const query of [
      `resourceVersion=${rv}`,
      `resourceVersion=${rv}&allowWatchBookmarks=true`,
      'fieldSelector=metadata.name%3Dnone',
    ]) {
      const { text, ms } = await rawHttp1(
        `GET ${CONFIGMAPS}?watch=true&${query} HTTP/1.1\r\nHost: x\r\n\r\n`,
        /\r\n\r\n/,
      );
      expect(text, query).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*transfer-encoding: chunked\r\n/i);
      expect(ms, query).toBeLessThan(1_000);
    }
    await expectStillReady();
  });
});
