// pods/proxy, services/proxy and nodes/proxy through a node's tunnel, without Docker: the
// in-process control plane (tunnel forced) and a real TunnelClient holding the node's tunnel with
// the node's client certificate. The node's addresses and pod CIDR are unroutable here; the
// tunnel's far end stands the "node network" in with local servers, so only the tunnel can reach them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TunnelClient } from '../../../src/agent/tunnel/tunnel-client.js';
import type { Endpoints, Node, Pod, Service } from '../../../src/api/types/core-v1.generated.js';
import { ENDPOINTS, NODES, PODS, SERVICES } from '../../../src/client/resources.js';
import type { TunnelTarget } from '../../../src/client/tunnel/tunnel-session.js';
import type { Client } from '../../../src/client/types.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { loadCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueClientCertificate } from '../../../src/pki/certificates.js';
import { eventually } from '../../support/control-plane.js';
import { type Answer, adminRequest } from '../../support/pki-request.js';

const NODE = 'tn-node-1';
const NODE_IP = '10.254.9.2';
const POD_CIDR = '10.254.10.0/24';
const POD_IP = '10.254.10.5';

let dir: string;
let controlPlane: RunningControlPlane;
let admin: Client;
let echo: Server;
let echoPort: number;
let tunnel: TunnelClient;
const abort = new AbortController();
let read: (name: string) => string;
const dialed: TunnelTarget[] = [];

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return adminRequest(controlPlane.port, join(dir, 'pki'), method, path, headers, body);
}

/** The node's network as the tunnel's far end sees it: the pod's port 8080 is the echo server. */
function nodeNetwork(target: TunnelTarget): Promise<Duplex> {
  dialed.push(target);
  const port = target.host === POD_IP && target.port === 8080 ? echoPort : 1;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkube-tunnel-'));
  const previous = process.env.TKUBE_APISERVER_TUNNEL;
  process.env.TKUBE_APISERVER_TUNNEL = 'always';
  try {
    controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0 });
  } finally {
    if (previous === undefined) delete process.env.TKUBE_APISERVER_TUNNEL;
    else process.env.TKUBE_APISERVER_TUNNEL = previous;
  }
  read = (name) => readFileSync(join(dir, 'pki', name), 'utf8');
  admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
  echo = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString() }));
    });
  });
  echoPort = await new Promise<number>((resolve) => {
    echo.listen(0, '127.0.0.1', () => resolve((echo.address() as { port: number }).port));
  });

  await admin.resource<Node>(NODES).create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE },
    spec: { podCIDR: POD_CIDR, podCIDRs: [POD_CIDR] },
  });
  const status = {
    addresses: [{ type: 'InternalIP', address: NODE_IP }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
  };
  await admin.resource<Node>(NODES).patch('', NODE, 'merge', { status }, { subresource: 'status' });
  const pods = admin.resource<Pod>(PODS);
  await pods.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      nodeName: NODE,
      containers: [{ name: 'httpd', image: 'busybox', ports: [{ containerPort: 8080 }] }],
    },
  });
  await pods.patch(
    'default',
    'web',
    'merge',
    { status: { podIP: POD_IP, podIPs: [{ ip: POD_IP }] } },
    { subresource: 'status' },
  );
  await pods.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'no-ip', namespace: 'default' },
    spec: { nodeName: NODE, containers: [{ name: 'httpd', image: 'busybox' }] },
  });
  const services = admin.resource<Service>(SERVICES);
  for (const name of ['web', 'empty']) {
    await services.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
  }
  await admin.resource<Endpoints>(ENDPOINTS).create({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web', namespace: 'default' },
    subsets: [
      {
        addresses: [{ ip: POD_IP, targetRef: { kind: 'Pod', namespace: 'default', name: 'web' } }],
        ports: [{ name: 'http', port: 8080 }],
      },
    ],
  });

  const ca = loadCertificateAuthority(read('ca.crt'), read('ca.key'));
  const nodeCert = await issueClientCertificate(ca, {
    user: `system:node:${NODE}`,
    groups: ['system:nodes'],
  });
  tunnel = new TunnelClient({
    server: `https://127.0.0.1:${controlPlane.port}`,
    ca: ca.certificatePem,
    cert: nodeCert.certificatePem,
    key: nodeCert.privateKeyPem,
    nodeIP: NODE_IP,
    podCIDRs: () => [POD_CIDR],
    dial: nodeNetwork,
    log: () => undefined,
  });
  void tunnel.run(abort.signal);
  await eventually(async () => (controlPlane.apiServer.tunnels.has(NODE) ? true : undefined));
}, 60_000);

afterAll(async () => {
  abort.abort();
  await new Promise((resolve) => (echo ? echo.close(resolve) : resolve(undefined)));
  await controlPlane?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the proxy subresources through a node tunnel', () => {
  it('pods/proxy reaches the pod by name and port, all methods, with the query', async () => {
    const got = await call('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/hello?x=1');
    expect(got.code).toBe(200);
    expect(JSON.parse(got.body)).toMatchObject({ method: 'GET', url: '/hello?x=1' });
    const posted = await call('POST', '/api/v1/namespaces/default/pods/http:web:8080/proxy/form', {}, 'a=b');
    expect(JSON.parse(posted.body)).toMatchObject({ method: 'POST', url: '/form', body: 'a=b' });
    // No port: the first declared container port.
    expect(JSON.parse((await call('GET', '/api/v1/namespaces/default/pods/web/proxy/')).body)).toMatchObject({
      url: '/',
    });
    expect(dialed).toContainEqual({ host: POD_IP, port: 8080 });
  });

  it('carries megabytes both ways through the tunnel', async () => {
    const body = 'x'.repeat(3 * 1024 * 1024);
    const posted = await call('POST', '/api/v1/namespaces/default/pods/web:8080/proxy/upload', {}, body);
    expect(posted.code).toBe(200);
    // The echo answers the whole body back inside its JSON.
    expect(JSON.parse(posted.body).body).toBe(body);
  });

  it('pods/proxy answers upstream errors', async () => {
    const root = await call('GET', '/api/v1/namespaces/default/pods/web:8080/proxy');
    expect(root).toMatchObject({
      code: 301,
      headers: { location: '/api/v1/namespaces/default/pods/web:8080/proxy/' },
    });
    const noIp = await call('GET', '/api/v1/namespaces/default/pods/no-ip:80/proxy/');
    expect(noIp.code).toBe(400);
    expect(JSON.parse(noIp.body)).toMatchObject({ reason: 'BadRequest', message: 'address not allowed' });
    const missing = await call('GET', '/api/v1/namespaces/default/pods/nope/proxy/');
    expect(JSON.parse(missing.body)).toMatchObject({ code: 404, message: 'pods "nope" not found' });
    const invalidName = await call('GET', '/api/v1/namespaces/default/pods/ftp:web:80/proxy/');
    expect(JSON.parse(invalidName.body)).toMatchObject({
      code: 400,
      message: 'invalid pod request "ftp:web:80"',
    });
    // Port 9 of the pod refuses: the far side's error, worded as Go's.
    const refused = await call('GET', '/api/v1/namespaces/default/pods/web:9/proxy/');
    expect(refused.code).toBe(503);
    expect(JSON.parse(refused.body).message).toBe(
      `error trying to reach service: dial tcp ${POD_IP}:9: connect: connection refused`,
    );
  });

  it('services/proxy picks a ready endpoint by port number or name', async () => {
    for (const name of ['web:80', 'web:http', 'http:web:80']) {
      const got = await call('GET', `/api/v1/namespaces/default/services/${name}/proxy/index.html`);
      expect(got.code).toBe(200);
      expect(JSON.parse(got.body)).toMatchObject({ url: '/index.html' });
    }
    const wrongPort = await call('GET', '/api/v1/namespaces/default/services/web:81/proxy/');
    expect(JSON.parse(wrongPort.body)).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'no service port 81 found for service "web"',
    });
    const noEndpoints = await call('GET', '/api/v1/namespaces/default/services/empty:80/proxy/');
    expect(noEndpoints.code).toBe(404);
    expect(JSON.parse(noEndpoints.body).message).toBe('endpoints "empty" not found');
    await admin
      .resource<Endpoints>(ENDPOINTS)
      .create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'empty', namespace: 'default' } });
    const empty = await call('GET', '/api/v1/namespaces/default/services/empty:80/proxy/');
    expect(JSON.parse(empty.body)).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'no endpoints available for service "empty"',
    });
  });

  it('authorizes the subresource with RBAC, as get/create on pods/proxy', async () => {
    const denied = await call('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/', {
      'impersonate-user': 'nobody',
    });
    expect(denied.code).toBe(403);
    expect(JSON.parse(denied.body).message).toBe(
      'pods "web:8080" is forbidden: User "nobody" cannot get resource "pods/proxy" in API group "" in the namespace "default"',
    );
    const post = await call('POST', '/api/v1/namespaces/default/services/web:80/proxy/', {
      'impersonate-user': 'nobody',
    });
    expect(JSON.parse(post.body).message).toBe(
      'services "web:80" is forbidden: User "nobody" cannot create resource "services/proxy" in API group "" in the namespace "default"',
    );
  });

  it('sends nodes/proxy through the tunnel when forced, and lets only nodes open one', async () => {
    dialed.length = 0;
    const node = await call('GET', `/api/v1/nodes/${NODE}/proxy/healthz`);
    // The far end dialed the kubelet's address (which refuses in this stand-in network).
    expect(dialed).toContainEqual({ host: NODE_IP, port: 10250 });
    expect(JSON.parse(node.body).message).toBe(
      `error trying to reach service: dial tcp ${NODE_IP}:10250: connect: connection refused`,
    );
    const admin = await call('POST', '/tkube-internal/v1/tunnel');
    expect(admin.code).toBe(403);
    expect(JSON.parse(admin.body).message).toBe(
      'User "kubernetes-admin" cannot open a node tunnel: only nodes may',
    );
  });

  it('refuses targets outside the node network at the far end', () => {
    expect(tunnel.allows({ host: POD_IP, port: 80 })).toBe(true);
    expect(tunnel.allows({ host: NODE_IP, port: 10250 })).toBe(true);
    expect(tunnel.allows({ host: '127.0.0.1', port: 6443 })).toBe(false);
    expect(tunnel.allows({ host: '10.254.11.5', port: 80 })).toBe(false);
    expect(tunnel.allows({ host: POD_IP, port: 0 })).toBe(false);
  });

  it('leaves no stream open once the requests are answered', async () => {
    await call('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/one');
    await call('GET', '/api/v1/namespaces/default/pods/web:9/proxy/refused');
    await eventually(async () => (controlPlane.apiServer.tunnels.openStreams(NODE) === 0 ? true : undefined));
  });

  it('counts the dials through each tunnel on /metrics', async () => {
    const metrics = (await call('GET', '/metrics')).body;
    expect(metrics).toContain(`tkube_apiserver_tunnel_connected{node="${NODE}"} 1`);
    const successes = /tkube_apiserver_tunnel_dials_total\{node="tn-node-1",result="success"\} (\d+)/.exec(
      metrics,
    );
    const failures = /tkube_apiserver_tunnel_dials_total\{node="tn-node-1",result="failure"\} (\d+)/.exec(
      metrics,
    );
    expect(Number(successes?.[1])).toBeGreaterThan(0);
    // The refused ports of the earlier tests.
    expect(Number(failures?.[1])).toBeGreaterThan(0);
    expect(metrics).toContain(`tkube_apiserver_tunnel_open_streams{node="${NODE}"} 0`);
  });

  it('takes tunnels over HTTP/2 only', async () => {
    const ca = loadCertificateAuthority(read('ca.crt'), read('ca.key'));
    const nodeCert = await issueClientCertificate(ca, {
      user: `system:node:${NODE}`,
      groups: ['system:nodes'],
    });
    const answer = await new Promise<Answer>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: controlPlane.port,
          method: 'POST',
          path: '/tkube-internal/v1/tunnel',
          ca: ca.certificatePem,
          cert: nodeCert.certificatePem,
          key: nodeCert.privateKeyPem,
          agent: false,
        },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on('end', () =>
            resolve({ code: response.statusCode ?? 0, headers: response.headers, body }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(answer.code).toBe(400);
    expect(JSON.parse(answer.body).message).toBe('a node tunnel needs HTTP/2');
  });

  it('reconnects when the control plane drops the tunnel, and proxies again', async () => {
    const before = tunnel.connections;
    controlPlane.apiServer.tunnels.closeAll();
    await eventually(async () =>
      tunnel.connections > before && controlPlane.apiServer.tunnels.has(NODE) ? true : undefined,
    );
    const got = await call('GET', '/api/v1/namespaces/default/services/web:80/proxy/again');
    expect(JSON.parse(got.body)).toMatchObject({ url: '/again' });
  });

  it('reconnects after the control plane restarts', async () => {
    const { port } = controlPlane;
    const before = tunnel.connections;
    await controlPlane.stop();
    process.env.TKUBE_APISERVER_TUNNEL = 'always';
    try {
      controlPlane = await startControlPlane({ stateDir: dir, apiPort: port });
    } finally {
      delete process.env.TKUBE_APISERVER_TUNNEL;
    }
    await eventually(
      async () =>
        tunnel.connections > before && controlPlane.apiServer.tunnels.has(NODE) ? true : undefined,
      20_000,
    );
    const got = await call('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/restarted');
    expect(JSON.parse(got.body)).toMatchObject({ url: '/restarted' });
  }, 60_000);

  it('forgets the tunnel when its agent stops, and says so to a request that needs it', async () => {
    abort.abort();
    await eventually(async () => (controlPlane.apiServer.tunnels.has(NODE) ? undefined : true));
    const got = await call('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/');
    expect(got.code).toBe(503);
    expect(JSON.parse(got.body).message).toBe(
      `error trying to reach service: no tunnel from node "${NODE}" is connected`,
    );
  });
});
