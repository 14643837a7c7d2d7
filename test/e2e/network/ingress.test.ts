// Ingress on `tkube up --nodes 2` with real Docker nodes, checked from the host with curl
// (`--resolve`) through the ingress service's LoadBalancer address and a node's address: two
// hosts and three paths to three services, a TLS host with its Secret's certificate (HTTP/2 by
// ALPN), a WebSocket handshake and messages through the ingress, and bad input: a missing
// service (503 and a Warning event), a broken TLS Secret (the default certificate and an event),
// an overlapping rule (the older Ingress keeps it, the newer gets an event); a user
// LoadBalancer address left to its service (the ingress listens on the node's address only); the
// host's own address seen by the backend as X-Real-IP (no source NAT on the way in); pods' requests
// to the address kept on their own node's agent.
import { createHash, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container, Event, Pod, Secret, Service } from '../../../src/api/types/core-v1.generated.js';
import type { Ingress } from '../../../src/api/types/networking-v1.generated.js';
import { EVENTS, INGRESSES, SECRETS, SERVICES } from '../../../src/client/resources.js';
import { selfSignedCertificate } from '../../support/self-signed.js';
import { importHostBinariesImage } from '../docker/host-binaries-image.js';
import { waitFor } from '../kubelet/pods-support.js';
import { backendContainer, type NetworkCluster, startNetworkCluster } from './support.js';

const NODE_IMAGE = 'tkube-test/ig-node:1';
let cluster: NetworkCluster;
let address = '';

/** A WebSocket echo server answering the handshake and echoing bytes upper-cased; `/client` answers the X-Real-IP it got. */
const WS_SERVER = `
const http = require('node:http'), crypto = require('node:crypto');
const server = http.createServer((q, s) => s.end(q.url === '/client' ? String(q.headers['x-real-ip']) : 'ws'));
server.on('upgrade', (q, socket) => {
  const accept = crypto.createHash('sha1').update(q.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  socket.on('data', (d) => socket.write(Buffer.from(d.toString().toUpperCase())));
  socket.on('end', () => socket.end());
});
server.listen(8080);`;

const secure = selfSignedCertificate('secure.test');
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** busybox httpd answering its pod's name at `/` and `/b/`. */
function site(): Container {
  const container = backendContainer();
  const script =
    'busybox mkdir -p /www/b && echo "$POD_NAME" > /www/index.html && cp /www/index.html /www/b/ && exec httpd -f -p 8080 -h /www';
  return { ...container, command: ['sh', '-c', script] };
}

function backend(name: string): Service {
  return {
    metadata: { name, namespace: 'default' },
    spec: { selector: { app: name }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] },
  };
}

const rule = (path: string, pathType: string, service: string, port: { number?: number; name?: string }) => ({
  path,
  pathType,
  backend: { service: { name: service, port } },
});

/** curl from the host: the body's first line, the status code and the HTTP version. */
async function curl(url: string, host: string, to: string): Promise<string> {
  const port = new URL(url).port || (url.startsWith('https') ? 443 : 80);
  const result = await execa(
    'curl',
    ['-sk', '-m', '5', '--resolve', `${host}:${port}:${to}`, '-w', '\n%{http_code} %{http_version}', url],
    { reject: false },
  );
  const lines = result.stdout.split('\n');
  const status = lines.at(-1) ?? '';
  return lines.length > 1 ? `${lines[0]!.trim()} ${status}` : status;
}

async function warnings(ingress: string): Promise<string[]> {
  const list = await cluster.client
    .resource<Event>(EVENTS)
    .list('default', { fieldSelector: `involvedObject.name=${ingress},type=Warning` });
  return list.items.map((event) => `${event.reason}: ${event.message}`);
}

beforeAll(async () => {
  cluster = await startNetworkCluster('ingress', 2, 'ig');
  await importHostBinariesImage(NODE_IMAGE, [['bin/node', process.execPath]]);
  await cluster.loadImage(NODE_IMAGE);
  for (const name of ['web-a', 'web-b', 'web-c']) {
    await cluster.pods.create({
      metadata: { name, namespace: 'default', labels: { app: name } },
      spec: { containers: [site()] },
    });
    await cluster.client.resource<Service>(SERVICES).create(backend(name));
  }
  await cluster.pods.create({
    metadata: { name: 'ws', namespace: 'default', labels: { app: 'ws' } },
    spec: {
      containers: [
        {
          name: 'ws',
          image: NODE_IMAGE,
          imagePullPolicy: 'Never',
          command: ['/bin/node', '-e', WS_SERVER],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
        },
      ],
    },
  });
  await cluster.client.resource<Service>(SERVICES).create(backend('ws'));
  const secrets = cluster.client.resource<Secret>(SECRETS);
  await secrets.create({
    metadata: { name: 'secure-tls', namespace: 'default' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': base64(secure.cert), 'tls.key': base64(secure.key) },
  });
  await secrets.create({
    metadata: { name: 'broken-tls', namespace: 'default' },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': base64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
      'tls.key': base64(secure.key),
    },
  });
  const ingresses = cluster.client.resource<Ingress>(INGRESSES);
  await ingresses.create({
    metadata: { name: 'site', namespace: 'default' },
    spec: {
      tls: [
        { hosts: ['secure.test'], secretName: 'secure-tls' },
        { hosts: ['broken.test'], secretName: 'broken-tls' },
      ],
      rules: [
        {
          host: 'one.test',
          http: {
            paths: [
              rule('/', 'Prefix', 'web-a', { number: 80 }),
              rule('/b', 'Prefix', 'web-b', { name: 'web' }),
              rule('/missing', 'Exact', 'nope', { number: 80 }),
            ],
          },
        },
        { host: 'two.test', http: { paths: [rule('/', 'ImplementationSpecific', 'web-c', { number: 80 })] } },
        { host: 'secure.test', http: { paths: [rule('/', 'Prefix', 'web-b', { number: 80 })] } },
        { host: 'broken.test', http: { paths: [rule('/', 'Prefix', 'web-c', { number: 80 })] } },
        { host: 'ws.test', http: { paths: [rule('/', 'Prefix', 'ws', { name: 'web' })] } },
      ],
    },
  });
  // Created later: its rule for two.test / is the older Ingress's.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await ingresses.create({
    metadata: { name: 'late', namespace: 'default' },
    spec: {
      rules: [
        { host: 'two.test', http: { paths: [rule('/', 'ImplementationSpecific', 'web-a', { number: 80 })] } },
      ],
    },
  });
  for (const name of ['web-a', 'web-b', 'web-c', 'ws']) {
    await waitFor(
      () => cluster.pods.get('default', name),
      (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      120_000,
      `backend ${name} ready`,
    );
  }
  const published = await waitFor(
    () => ingresses.get('default', 'site'),
    (ingress) => Boolean(ingress.status?.loadBalancer?.ingress?.[0]?.ip),
    30_000,
    'the ingress address',
  );
  address = published.status!.loadBalancer!.ingress![0]!.ip!;
  // A Ready pod is not yet a programmed Service endpoint on every node: the ingress reaches each
  // backend through its ClusterIP, so wait until every backend answers there.
  for (const [url, host, answer] of [
    ['http://one.test/', 'one.test', 'web-a'],
    ['http://one.test/b/', 'one.test', 'web-b'],
    ['http://two.test/', 'two.test', 'web-c'],
    ['http://ws.test/', 'ws.test', 'ws '],
  ] as const) {
    for (const target of [address, ...cluster.nodeIPs.values()]) {
      await waitFor(
        () => curl(url, host, target),
        (out) => out.startsWith(answer),
        30_000,
        `routing ${url}`,
      );
    }
  }
}, 360_000);

afterAll(async () => {
  await cluster?.down();
});

describe('ingress from the host', () => {
  it('routes two hosts and three paths to three services, through the LoadBalancer address and a node', async () => {
    expect(await curl('http://one.test/', 'one.test', address)).toBe('web-a 200 1.1');
    expect(await curl('http://one.test/b/', 'one.test', address)).toBe('web-b 200 1.1');
    // `/bc` is not under the Prefix `/b`: web-a's (which has no such page).
    expect(await curl('http://one.test/bc', 'one.test', address)).toMatch(/ 404 1\.1$/);
    expect(await curl('http://two.test/', 'two.test', address)).toBe('web-c 200 1.1');
    const node = [...cluster.nodeIPs.values()][1]!;
    expect(await curl('http://one.test/b/', 'one.test', node)).toBe('web-b 200 1.1');
    expect(await curl('http://unknown.test/', 'unknown.test', address)).toMatch(/ 404 1\.1$/);
  });

  it("passes the host's own address on as the client's (externalTrafficPolicy Local: no source NAT)", async () => {
    // The address this host sends from towards the LoadBalancer address.
    const probe = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => probe.connect(80, address, resolve));
    const hostAddress = probe.address().address;
    probe.close();
    expect(await curl('http://ws.test/client', 'ws.test', address)).toBe(`${hostAddress} 200 1.1`);
  });

  it("keeps pods' requests to the ingress address on their own node's agent (PreferSameNode hints)", async () => {
    // Pods' traffic to the address takes the cluster policy; the node hints narrow it to this node.
    for (const [node, ip] of cluster.nodeIPs) {
      const targets = await waitFor(
        async () => {
          const saved = (await execa('docker', ['exec', node, 'iptables-save', '-t', 'nat'])).stdout;
          return saved
            .split('\n')
            .filter((line) => /^-A KUBE-SVC-\S+ .*"kube-system\/tkube-ingress:http -> /.test(line))
            .map((line) => /-> ([\d.]+):80"/.exec(line)?.[1]);
        },
        (found) => found.length === 1,
        20_000,
        `the ingress service's cluster chain on ${node}`,
      );
      expect(targets).toEqual([ip]);
    }
  });

  it("serves a TLS host with its Secret's certificate, over HTTP/2", async () => {
    const caFile = join(mkdtempSync(join(tmpdir(), 'ig-ca-')), 'ca.pem');
    writeFileSync(caFile, secure.cert);
    const result = await execa(
      'curl',
      [
        '-s',
        '-m',
        '5',
        '--cacert',
        caFile,
        '--resolve',
        `secure.test:443:${address}`,
        '-w',
        ' %{http_code} %{http_version}',
        'https://secure.test/',
      ],
      { reject: false },
    );
    expect(result.stdout).toMatch(/^web-b\s+200 2$/);
  });

  it('passes a WebSocket through', async () => {
    const key = randomBytes(16).toString('base64');
    const socket = net.connect(80, address);
    const received: Buffer[] = [];
    socket.on('data', (data: Buffer) => received.push(data));
    socket.write(
      `GET /chat HTTP/1.1\r\nHost: ws.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`,
    );
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    await expect
      .poll(() => Buffer.concat(received).toString(), { timeout: 5_000 })
      .toContain(`Sec-WebSocket-Accept: ${accept}`);
    socket.write('hello');
    await expect.poll(() => Buffer.concat(received).toString(), { timeout: 5_000 }).toContain('HELLO');
    socket.destroy();
  });

  it('answers 503 for a missing service, with a Warning event', async () => {
    expect(await curl('http://one.test/missing', 'one.test', address)).toMatch(/503 1\.1$/);
    await waitFor(
      () => warnings('site'),
      (list) => list.includes('ServiceNotFound: backend default/nope: service not found'),
      10_000,
      'the event',
    );
  });

  it('serves the default certificate for a broken Secret, with a Warning event', async () => {
    const result = await execa(
      'curl',
      ['-skv', '-m', '5', '--resolve', `broken.test:443:${address}`, 'https://broken.test/'],
      { reject: false },
    );
    expect(result.stderr).toContain('Kubernetes Ingress Controller Fake Certificate');
    expect(result.stdout.trim()).toBe('web-c');
    await waitFor(
      () => warnings('site'),
      (list) =>
        list.some((line) =>
          line.startsWith('InvalidCertificate: Error loading SSL certificate "default/broken-tls"'),
        ),
      10_000,
      'the event',
    );
  });

  it('keeps an overlapping rule with the older Ingress and warns on the newer', async () => {
    expect(await curl('http://two.test/', 'two.test', address)).toBe('web-c 200 1.1');
    await waitFor(
      () => warnings('late'),
      (list) =>
        list.includes(
          'OverlappingRule: host "two.test" path "/" (ImplementationSpecific) is already defined in ingress default/site',
        ),
      10_000,
      'the event',
    );
  });

  it("leaves a user LoadBalancer address alone: its port 80 is not the ingress's", async () => {
    const services = cluster.client.resource<Service>(SERVICES);
    await services.create({
      metadata: { name: 'own-address', namespace: 'default' },
      spec: { type: 'LoadBalancer', selector: { app: 'web-a' }, ports: [{ port: 8080, targetPort: 'http' }] },
    });
    const own = await waitFor(
      () => services.get('default', 'own-address'),
      (svc) => Boolean(svc.status?.loadBalancer?.ingress?.[0]?.ip),
      30_000,
      'an address for own-address',
    );
    const ip = own.status!.loadBalancer!.ingress![0]!.ip!;
    // Held by a node and served on the service's port...
    await waitFor(
      () => curl('http://one.test:8080/', 'one.test', ip).catch(() => ''),
      (answer) => answer === 'web-a 200 1.1',
      30_000,
      `web-a at ${ip}:8080`,
    );
    // ...and nothing else (curl's 000: refused): a wildcard ingress listener would answer 404 here.
    expect((await curl('http://one.test/', 'one.test', ip)).trim()).toMatch(/^000 /);
  });
});
