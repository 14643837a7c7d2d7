// The ingress proxy against real local backends: HTTP/1.1 forwarding with forwarded headers and
// streamed bodies, ingress-nginx's 404 and 503 answers, TLS with the certificate chosen by SNI
// (a broken Secret falls back to the default certificate, with a problem reported), HTTP/2 over
// TLS, and a WebSocket-style upgrade joined byte for byte.
import type { X509Certificate } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCertificateTable, defaultSecureContext } from '../../../../src/agent/ingress/certificates.js';
import { resolveServiceBackend } from '../../../../src/agent/ingress/index.js';
import { IngressProxy, type Resolution } from '../../../../src/agent/ingress/proxy-server.js';
import { defaultIngressClass, servedByTkube } from '../../../../src/api/ingress.js';
import type { Secret } from '../../../../src/api/types/core-v1.generated.js';
import type { Ingress } from '../../../../src/api/types/networking-v1.generated.js';
import { selfSignedCertificate } from '../../../support/self-signed.js';

function tlsSecret(name: string, pair: { cert: string; key: string }): Secret {
  return {
    metadata: { name, namespace: 'default', uid: name, resourceVersion: '1' },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(pair.cert).toString('base64'),
      'tls.key': Buffer.from(pair.key).toString('base64'),
    },
  };
}

describe('ingress proxy', () => {
  let backend: http.Server;
  let backendPort = 0;
  let proxy: IngressProxy;
  let ports = { http: 0, https: 0 };
  const secure = selfSignedCertificate('secure.test');
  const ingress: Ingress = {
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: {
      tls: [
        { hosts: ['secure.test'], secretName: 'good' },
        { hosts: ['broken.test'], secretName: 'broken' },
        { hosts: ['missing.test'], secretName: 'nope' },
      ],
    },
  };
  const broken = tlsSecret('broken', {
    cert: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    key: secure.key,
  });
  const certificates = buildCertificateTable(
    [ingress],
    (_namespace, name) => ({ good: tlsSecret('good', secure), broken })[name],
    new Map(),
  );

  beforeAll(async () => {
    backend = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/headers') {
          // The headers as received (repeated ones kept apart) and two cookies set.
          response.setHeader('set-cookie', ['a=1', 'b=2']);
          response.end(JSON.stringify(request.rawHeaders));
          return;
        }
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            url: request.url,
            host: request.headers.host,
            forwardedProto: request.headers['x-forwarded-proto'],
            forwardedFor: request.headers['x-forwarded-for'],
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
    });
    backend.on('upgrade', (request: http.IncomingMessage, socket: net.Socket) => {
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${request.headers.upgrade}\r\nConnection: Upgrade\r\n\r\n`,
      );
      socket.on('data', (data: Buffer) => socket.write(Buffer.from(data.toString().toUpperCase())));
      // An HTTP server's sockets allow half-open connections: end ours when the proxy ends its side.
      socket.on('end', () => socket.end());
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendPort = (backend.address() as AddressInfo).port;
    proxy = new IngressProxy({
      bindAddress: '127.0.0.1',
      httpPort: 0,
      httpsPort: 0,
      defaultContext: defaultSecureContext(),
      secureContext: (name) => certificates.contextFor(name),
      resolve: (host, path): Resolution => {
        if (host.startsWith('gone.test')) return { kind: 'unavailable' };
        if (path.startsWith('/nothing')) return { kind: 'not-found' };
        return { kind: 'backend', host: '127.0.0.1', port: backendPort };
      },
    });
    ports = await proxy.listen();
  });

  afterAll(async () => {
    await proxy.close();
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
  });

  function get(path: string, host: string, body?: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port: ports.http, path, method: body ? 'POST' : 'GET', headers: { host } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  it('forwards HTTP/1.1 requests with their host, path, body and forwarded headers', async () => {
    const reply = await get('/app/x?y=1', 'site.test', 'hello');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      url: '/app/x?y=1',
      host: 'site.test',
      forwardedProto: 'http',
      forwardedFor: '127.0.0.1',
      body: 'hello',
    });
  });

  it('passes repeated headers on, extends X-Forwarded-For and sets the other forwarded headers itself', async () => {
    const { status, headers, rawHeaders } = await new Promise<http.IncomingMessage & { text: string }>(
      (resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port: ports.http,
            path: '/headers',
            headers: [
              'Host',
              'site.test',
              'X-Forwarded-For',
              '10.0.0.1',
              'X-Real-IP',
              '6.6.6.6',
              'X-Forwarded-Proto',
              'https',
              'Accept',
              'text/plain',
              'Accept',
              'text/html',
              'Connection',
              'keep-alive',
            ] as unknown as http.OutgoingHttpHeaders,
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve(Object.assign(response, { text })));
          },
        );
        request.on('error', reject);
        request.end();
      },
    ).then((response) => ({
      status: response.statusCode,
      headers: response.headers,
      rawHeaders: JSON.parse(response.text) as string[],
    }));
    expect(status).toBe(200);
    expect(headers['set-cookie']).toEqual(['a=1', 'b=2']);
    const received = new Map<string, string[]>();
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toLowerCase();
      received.set(name, [...(received.get(name) ?? []), rawHeaders[i + 1]!]);
    }
    expect(received.get('host')).toEqual(['site.test']);
    expect(received.get('accept')).toEqual(['text/plain', 'text/html']);
    expect(received.get('x-forwarded-for')).toEqual(['10.0.0.1, 127.0.0.1']);
    expect(received.get('x-real-ip')).toEqual(['127.0.0.1']);
    expect(received.get('x-forwarded-proto')).toEqual(['http']);
    expect(received.get('x-forwarded-host')).toEqual(['site.test']);
  });

  it("answers 404 without a rule and 503 for a missing service, as ingress-nginx's pages", async () => {
    const missing = await get('/nothing', 'site.test');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('<title>404 Not Found</title>');
    const gone = await get('/', 'gone.test');
    expect(gone.status).toBe(503);
    expect(gone.body).toContain('<title>503 Service Temporarily Unavailable</title>');
  });

  function servedCertificate(servername: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: ports.https, servername, rejectUnauthorized: false },
        () => {
          resolve(socket.getPeerX509Certificate()?.subject ?? '');
          socket.destroy();
        },
      );
      socket.on('error', reject);
    });
  }

  it('serves the Secret of the SNI name, and the default certificate for broken or missing ones', async () => {
    expect(await servedCertificate('secure.test')).toBe('CN=secure.test');
    expect(await servedCertificate('broken.test')).toContain(
      'Kubernetes Ingress Controller Fake Certificate',
    );
    expect(await servedCertificate('missing.test')).toContain(
      'Kubernetes Ingress Controller Fake Certificate',
    );
    expect(certificates.problems.map((problem) => problem.reason).sort()).toEqual([
      'InvalidCertificate',
      'SecretNotFound',
    ]);
  });

  it('makes its default certificate self-signed with an ECDSA P-256 key', async () => {
    const certificate = await new Promise<X509Certificate | undefined>((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: ports.https, servername: 'missing.test', rejectUnauthorized: false },
        () => {
          resolve(socket.getPeerX509Certificate());
          socket.destroy();
        },
      );
      socket.on('error', reject);
    });
    expect(certificate?.subject).toContain('CN=Kubernetes Ingress Controller Fake Certificate');
    expect(certificate?.publicKey.asymmetricKeyType).toBe('ec');
    expect(certificate?.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(certificate?.verify(certificate.publicKey)).toBe(true);
    expect(certificate?.subjectAltName).toBe('DNS:ingress.local');
  });

  it('forwards HTTP/2 over TLS', async () => {
    const session = http2.connect(`https://127.0.0.1:${ports.https}`, {
      servername: 'secure.test',
      ca: secure.cert,
      checkServerIdentity: () => undefined,
    });
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const stream = session.request({ ':path': '/h2', ':method': 'GET', ':authority': 'secure.test' });
      let status = 0;
      let body = '';
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
      stream.on('end', () => resolve({ status, body }));
      stream.on('error', reject);
      stream.end();
    });
    session.close();
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({
      url: '/h2',
      host: 'secure.test',
      forwardedProto: 'https',
    });
  });

  it('joins the cookies an HTTP/2 client splits into one header for the HTTP/1.1 backend', async () => {
    const session = http2.connect(`https://127.0.0.1:${ports.https}`, {
      servername: 'secure.test',
      ca: secure.cert,
      checkServerIdentity: () => undefined,
    });
    const body = await new Promise<string>((resolve, reject) => {
      const stream = session.request({
        ':path': '/headers',
        ':method': 'GET',
        ':authority': 'secure.test',
        cookie: ['a=1', 'b=2'],
      });
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => resolve(text));
      stream.on('error', reject);
      stream.end();
    });
    session.close();
    const raw = JSON.parse(body) as string[];
    const cookies = raw.filter((_, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === 'cookie');
    expect(cookies).toEqual(['a=1; b=2']);
    expect(raw.filter((value, i) => i % 2 === 0 && value.startsWith(':'))).toEqual([]);
  });

  it('joins an upgraded connection to the backend both ways', async () => {
    const socket = net.connect(ports.http, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (data: Buffer) => received.push(data));
    socket.write('GET /ws HTTP/1.1\r\nHost: site.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    await expect.poll(() => Buffer.concat(received).toString()).toContain('101 Switching Protocols');
    socket.write('ping');
    await expect.poll(() => Buffer.concat(received).toString()).toContain('PING');
    socket.destroy();
  });
});

describe('ingress classes and backends', () => {
  const tkube = {
    metadata: { name: 'tkube', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    spec: { controller: 'tkube.dev/ingress' },
  };
  const other = { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } };

  it('serves Ingresses of its classes, and those without a class while its class is the default', () => {
    const named = (name?: string): Ingress => ({ metadata: { name: 'i' }, spec: { ingressClassName: name } });
    expect(servedByTkube(named('tkube'), [tkube, other])).toBe(true);
    expect(servedByTkube(named('nginx'), [tkube, other])).toBe(false);
    expect(servedByTkube(named(undefined), [tkube, other])).toBe(true);
    expect(servedByTkube(named(undefined), [other])).toBe(false);
    const legacy: Ingress = {
      metadata: { name: 'i', annotations: { 'kubernetes.io/ingress.class': 'nginx' } },
    };
    expect(servedByTkube(legacy, [tkube, other])).toBe(false);
  });

  it('takes the newest default class, of equally new ones the first by name (DefaultIngressClass)', () => {
    const at = (name: string, time: string) => ({
      metadata: {
        name,
        creationTimestamp: time,
        annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
      },
    });
    const old = at('old', '2026-01-01T00:00:00Z');
    const newer = at('newer', '2026-01-02T00:00:00Z');
    const tie = at('a-tie', '2026-01-02T00:00:00Z');
    expect(defaultIngressClass([old, newer])?.metadata.name).toBe('newer');
    expect(defaultIngressClass([old, newer, tie])?.metadata.name).toBe('a-tie');
    expect(defaultIngressClass([other])).toBeUndefined();
    const newerOther = { ...at('x', '2026-02-01T00:00:00Z'), spec: { controller: 'k8s.io/ingress-nginx' } };
    expect(servedByTkube({ metadata: { name: 'i' } }, [tkube, newerOther])).toBe(false);
  });

  it('resolves service ports by name or number to the ClusterIP', () => {
    const service = {
      metadata: { name: 's' },
      spec: { clusterIP: '10.96.1.2', ports: [{ name: 'web', port: 8080 }] },
    };
    expect(resolveServiceBackend({ service: { name: 's', port: { name: 'web' } } }, service)).toEqual({
      host: '10.96.1.2',
      port: 8080,
    });
    expect(resolveServiceBackend({ service: { name: 's', port: { number: 8080 } } }, service)).toEqual({
      host: '10.96.1.2',
      port: 8080,
    });
    expect(resolveServiceBackend({ service: { name: 's', port: { number: 81 } } }, service)).toEqual({
      problem: 'service has no port 81',
    });
    expect(resolveServiceBackend({ service: { name: 's', port: { number: 80 } } }, undefined)).toEqual({
      problem: 'service not found',
    });
  });
});
