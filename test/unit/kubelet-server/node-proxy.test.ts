// nodes/{name}/proxy end to end without Docker: the in-process control plane forwards to a real
// kubelet server (which authorizes the apiserver with a SubjectAccessReview) and to a plain HTTP
// echo server on another port of the same node. Both listen on a non-loopback address of this
// machine: like kube-apiserver, tkube refuses to proxy to other ports than the kubelet's on
// loopback node addresses.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { gunzipSync, gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeletMetrics } from '../../../src/agent/kubelet/metrics.js';
import { type KubeletServer, startKubeletServer } from '../../../src/agent/kubelet/server/index.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import type { ClusterRole, ClusterRoleBinding } from '../../../src/api/types/rbac-v1.generated.js';
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, NODES } from '../../../src/client/resources.js';
import type { Client } from '../../../src/client/types.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { loadCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueServingCertificate } from '../../../src/pki/certificates.js';
import { writeAdminKubeconfig } from '../../support/admin-kubeconfig.js';
import { eventually } from '../../support/control-plane.js';
import { adminRequest } from '../../support/pki-request.js';

/** An address of this machine the apiserver may proxy to (global unicast). */
const nodeIP = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

let dir: string;
let controlPlane: RunningControlPlane;
let kubelet: KubeletServer;
let echo: Server;
let echoPort: number;
let closedPort: number;
/** The upgrade requests the echo server saw. */
const upgrades: { url: string; headers: IncomingHttpHeaders }[] = [];
let admin: Client;
let read: (name: string) => string;

const kubeletPod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }] },
};

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return adminRequest(controlPlane.port, join(dir, 'pki'), method, path, headers, body);
}

async function addNode(name: string, address: string, port: number) {
  await admin.resource<Node>(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
  const status = {
    addresses: [{ type: 'InternalIP', address }],
    daemonEndpoints: { kubeletEndpoint: { Port: port } },
  };
  await admin.resource<Node>(NODES).patch('', name, 'merge', { status }, { subresource: 'status' });
}

beforeAll(async () => {
  if (!nodeIP) return;
  dir = mkdtempSync(join(tmpdir(), 'tkube-nodeproxy-'));
  controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0 });
  read = (name) => readFileSync(join(dir, 'pki', name), 'utf8');
  const ca = loadCertificateAuthority(read('ca.crt'), read('ca.key'));
  const serving = await issueServingCertificate(ca, {
    commonName: 'system:node:node-1',
    ipAddresses: [nodeIP],
  });
  kubelet = await startKubeletServer({
    nodeName: 'node-1',
    client: controlPlane.loopbackClient(
      { name: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] },
      'kubelet',
    ),
    address: nodeIP,
    port: 0,
    tls: {
      certificatePem: serving.certificatePem,
      privateKeyPem: serving.privateKeyPem,
      clientCaPem: ca.certificatePem,
    },
    host: {
      pods: () => [kubeletPod],
      containerStatus: async () => undefined,
      metricsText: () => new KubeletMetrics('node-1').render(),
    },
  });
  echo = createHttpServer((req, res) => {
    if (req.url?.startsWith('/page')) {
      // A page that links to the backend's own paths, as agnhost's porter serves.
      const page = Buffer.from(
        `<p>Hi <a href="/rewriteme">test</a> <img src="http://${nodeIP}:${echoPort}/i.png"></p>`,
      );
      const gzipped = req.url === '/page.gz';
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        ...(gzipped ? { 'content-encoding': 'gzip' } : { 'content-length': String(page.length) }),
      });
      res.end(gzipped ? gzipSync(page) : page);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.stringify({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const redirect = req.url?.startsWith('/moved')
        ? { location: `http://${nodeIP}:${echoPort}/there` }
        : {};
      res.writeHead(req.url?.startsWith('/moved') ? 302 : 200, {
        'content-type': 'application/json',
        'access-control-allow-origin': '*',
        'x-backend': 'echo',
        ...redirect,
      });
      res.end(body);
    });
  });
  // An upgrade answered with 101, then an echo of the stream.
  echo.on('upgrade', (req, socket: Duplex) => {
    upgrades.push({ url: req.url ?? '', headers: req.headers });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.pipe(socket);
  });
  echoPort = await new Promise<number>((resolve) => {
    echo.listen(0, nodeIP, () => resolve((echo.address() as { port: number }).port));
  });
  closedPort = await new Promise<number>((resolve) => {
    const server = createTcpServer().listen(0, nodeIP, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
  await addNode('node-1', nodeIP, kubelet.port);
  await addNode('node-down', nodeIP, closedPort);
  await addNode('node-loopback', '127.0.0.1', kubelet.port);
}, 60_000);

afterAll(async () => {
  await kubelet?.close();
  await new Promise((resolve) => (echo ? echo.close(resolve) : resolve(undefined)));
  await controlPlane?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!nodeIP)('nodes/proxy through the apiserver', () => {
  it('passes the kubelet endpoints through with their code, type and body', async () => {
    expect(await call('GET', '/api/v1/nodes/node-1/proxy/healthz')).toMatchObject({
      code: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: 'ok',
    });
    // The query goes along.
    expect((await call('GET', '/api/v1/nodes/node-1/proxy/healthz?verbose')).body).toBe(
      '[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n',
    );
    const pods = await call('GET', '/api/v1/nodes/node-1/proxy/pods');
    expect(pods).toMatchObject({ code: 200, headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(pods.body)).toMatchObject({ kind: 'PodList', items: [{ metadata: { name: 'web' } }] });
    const metrics = await call('GET', '/api/v1/nodes/node-1/proxy/metrics');
    expect(metrics).toMatchObject({
      code: 200,
      headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
    });
    expect(metrics.body).toContain('kubelet_node_name{node="node-1"} 1');
    // The kubelet port named in the name is the same kubelet, over HTTPS, whatever the scheme.
    for (const name of [
      `node-1:${kubelet.port}`,
      `https:node-1:${kubelet.port}`,
      `http:node-1:${kubelet.port}`,
    ]) {
      expect(await call('GET', `/api/v1/nodes/${name}/proxy/healthz`)).toMatchObject({
        code: 200,
        body: 'ok',
      });
    }
  });

  it("answers with the kubelet's own failures, not Status objects", async () => {
    expect(await call('GET', '/api/v1/nodes/node-1/proxy/no-such-endpoint')).toMatchObject({
      code: 404,
      body: '404 page not found\n',
    });
    expect(await call('POST', '/api/v1/nodes/node-1/proxy/pods', {}, '{}')).toMatchObject({
      code: 405,
      headers: { allow: 'GET' },
      body: 'Method Not Allowed',
    });
  });

  it('redirects the bare proxy root to its slashed form', async () => {
    expect(await call('GET', '/api/v1/nodes/node-1/proxy?a=b')).toMatchObject({
      code: 301,
      headers: { location: '/api/v1/nodes/node-1/proxy/?a=b' },
    });
  });

  it('forwards method, path, query, headers and body to another port, plainly', async () => {
    const name = `node-1:${echoPort}`;
    const answer = await call(
      'PUT',
      `/api/v1/nodes/${name}/proxy/a/../b/c/?x=1&x=2`,
      { 'content-type': 'text/plain', 'x-custom': 'yes' },
      'the body',
    );
    expect(answer).toMatchObject({ code: 200, headers: { 'x-backend': 'echo' } });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const seen = JSON.parse(answer.body) as {
      method: string;
      url: string;
      headers: IncomingHttpHeaders;
      body: string;
    };
    expect(seen).toMatchObject({
      method: 'PUT',
      url: '/b/c/?x=1&x=2',
      body: 'the body',
      headers: {
        'content-type': 'text/plain',
        'x-custom': 'yes',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-uri': `/api/v1/nodes/${name}/proxy/b/c/`,
      },
    });
    // A backend redirect to itself stays under the proxy path.
    expect((await call('GET', `/api/v1/nodes/${name}/proxy/moved`)).headers.location).toBe(
      `/api/v1/nodes/${name}/proxy/there`,
    );
  });

  it('rewrites the links of an HTML answer under the proxy path, gzipped or not', async () => {
    const name = `node-1:${echoPort}`;
    const expected = `<p>Hi <a href="/api/v1/nodes/${name}/proxy/rewriteme">test</a> <img src="/api/v1/nodes/${name}/proxy/i.png"></p>`;
    const plain = await call('GET', `/api/v1/nodes/${name}/proxy/page`);
    expect(plain).toMatchObject({ code: 200, body: expected });
    expect(plain.headers['content-length']).toBeUndefined();
    const read = (file: string) => readFileSync(join(dir, 'pki', file), 'utf8');
    const zipped = await new Promise<{ encoding?: string; body: string }>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: controlPlane.port,
          path: `/api/v1/nodes/${name}/proxy/page.gz`,
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
              encoding: response.headers['content-encoding'],
              body: gunzipSync(Buffer.concat(chunks)).toString('utf8'),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(zipped).toEqual({ encoding: 'gzip', body: expected });
  });

  it('answers for unknown nodes, bad names, loopback nodes and kubelets it cannot reach', async () => {
    const ghost = JSON.parse((await call('GET', '/api/v1/nodes/ghost/proxy/healthz')).body);
    expect(ghost).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'nodes "ghost" not found',
      details: { name: 'ghost', kind: 'nodes' },
    });
    expect(JSON.parse((await call('GET', '/api/v1/nodes/a:b:c:d/proxy/healthz')).body)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'invalid node request "a:b:c:d"',
    });
    // Another port than the kubelet's, on a loopback address: refused.
    const loopback = await call('GET', `/api/v1/nodes/node-loopback:${echoPort}/proxy/healthz`);
    expect(JSON.parse(loopback.body)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'address not allowed',
    });
    const down = await call('GET', '/api/v1/nodes/node-down/proxy/healthz');
    expect(down.code).toBe(503);
    expect(JSON.parse(down.body)).toMatchObject({
      reason: 'ServiceUnavailable',
      message: `error trying to reach service: dial tcp ${nodeIP}:${closedPort}: connect: connection refused`,
    });
    expect(
      JSON.parse((await call('GET', '/api/v1/nodes/node-1/proxy/healthz?dryRun=All')).body),
    ).toMatchObject({
      code: 400,
      message: 'dryRun is not supported',
    });
  });

  /** Sends an upgrade request for `path` on a raw TLS connection; returns what came back once `done` says so. */
  async function upgradeThrough(
    path: string,
    then?: string,
    done = (text: string) => text.includes('\r\n\r\n'),
  ) {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: controlPlane.port,
      ca: read('ca.crt'),
      cert: read('admin.crt'),
      key: read('admin.key'),
      ALPNProtocols: ['http/1.1'],
      servername: 'localhost',
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (then !== undefined && received.includes('\r\n\r\n') && received.startsWith('HTTP/1.1 101')) {
        socket.write(then);
        then = undefined;
      }
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`);
    try {
      return await eventually(async () => (done(received) ? received : undefined));
    } finally {
      socket.destroy();
    }
  }

  it('passes upgrade requests through to the node, joined byte for byte, and answers 503 when it is down', async () => {
    upgrades.length = 0;
    const echoed = await upgradeThrough(
      `/api/v1/nodes/node-1:${echoPort}/proxy/chat?room=1`,
      'ping-through-nodes-proxy',
      (text) => text.includes('ping-through-nodes-proxy'),
    );
    expect(echoed.startsWith('HTTP/1.1 101 Switching Protocols')).toBe(true);
    expect(upgrades).toHaveLength(1);
    expect(upgrades[0]!.url).toBe('/chat?room=1');
    expect(upgrades[0]!.headers.upgrade).toBe('echo');
    expect(upgrades[0]!.headers.authorization).toBeUndefined();
    expect(upgrades[0]!.headers['x-forwarded-uri']).toBe(`/api/v1/nodes/node-1:${echoPort}/proxy/chat`);

    const refused = await upgradeThrough('/api/v1/nodes/node-down/proxy/chat', undefined, (text) =>
      text.includes('}'),
    );
    expect(refused.startsWith('HTTP/1.1 503')).toBe(true);
    expect(refused).toContain(
      `error trying to reach service: dial tcp ${nodeIP}:${closedPort}: connect: connection refused`,
    );
  });

  it('reads like any Kubernetes through kubectl (HTTP/2)', async () => {
    const kubeconfig = writeAdminKubeconfig(join(dir, 'kubeconfig'), controlPlane.port, join(dir, 'pki'));
    const kubectl = (args: string[], input?: string) =>
      execa('kubectl', ['--kubeconfig', kubeconfig, ...args], { reject: false, timeout: 20_000, input });
    const raw = (path: string) => kubectl(['get', '--raw', path]);
    expect(await raw('/api/v1/nodes/node-1/proxy/healthz')).toMatchObject({ exitCode: 0, stdout: 'ok' });
    // A body sent over HTTP/2 arrives whole.
    const posted = await kubectl(
      ['create', '--raw', `/api/v1/nodes/node-1:${echoPort}/proxy/in`, '-f', '-'],
      '{"a":1}',
    );
    expect(posted.exitCode).toBe(0);
    expect(JSON.parse(posted.stdout)).toMatchObject({ method: 'POST', url: '/in', body: '{"a":1}' });
    expect(await raw('/api/v1/nodes/node-down/proxy/healthz')).toMatchObject({
      exitCode: 1,
      stderr: `Error from server (ServiceUnavailable): error trying to reach service: dial tcp ${nodeIP}:${closedPort}: connect: connection refused`,
    });
  });

  it('authorizes nodes/proxy with the request verb; OPTIONS needs the * verb', async () => {
    const asBob = { 'impersonate-user': 'bob' };
    expect(JSON.parse((await call('GET', '/api/v1/nodes/node-1/proxy/healthz', asBob)).body)).toMatchObject({
      code: 403,
      message:
        'nodes "node-1" is forbidden: User "bob" cannot get resource "nodes/proxy" in API group "" at the cluster scope',
    });
    expect(
      JSON.parse((await call('DELETE', `/api/v1/nodes/node-1:${echoPort}/proxy/x`, asBob)).body).message,
    ).toContain('User "bob" cannot delete resource "nodes/proxy"');
    await admin.resource<ClusterRole>(CLUSTER_ROLES).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'node-proxy-reader' },
      rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }],
    });
    const bind = (name: string, role: string) =>
      admin.resource<ClusterRoleBinding>(CLUSTER_ROLE_BINDINGS).create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
      });
    await bind('bob-reader', 'node-proxy-reader');
    const healthz = await eventually(async () => {
      const answer = await call('GET', '/api/v1/nodes/node-1/proxy/healthz', asBob);
      return answer.code === 403 ? undefined : answer;
    });
    expect(healthz).toMatchObject({ code: 200, body: 'ok' });
    // Bob's credentials are not the backend's business.
    const seen = JSON.parse((await call('GET', `/api/v1/nodes/node-1:${echoPort}/proxy/`, asBob)).body);
    expect(seen.headers['impersonate-user']).toBeUndefined();
    expect(
      JSON.parse((await call('OPTIONS', `/api/v1/nodes/node-1:${echoPort}/proxy/`, asBob)).body),
    ).toMatchObject({
      code: 403,
      message: `nodes "node-1:${echoPort}" is forbidden: User "bob" cannot  resource "nodes/proxy" in API group "" at the cluster scope`,
    });
    await bind('bob-kubelet-api-admin', 'system:kubelet-api-admin');
    const options = await eventually(async () => {
      const answer = await call('OPTIONS', `/api/v1/nodes/node-1:${echoPort}/proxy/`, asBob);
      return answer.code === 403 ? undefined : answer;
    });
    expect(JSON.parse(options.body)).toMatchObject({ method: 'OPTIONS', url: '/' });
  });
});
