// LoadBalancer addresses published on host ports (Docker Desktop's case), without Docker: the
// in-process control plane with TKUBE_LOAD_BALANCER_HOST_PORTS=always and a real TunnelClient
// holding a node's tunnel; the tunnel's far end stands the node network in, where the service's
// address answers on port 80 and nothing else does. The host can reach the address only through
// the published port.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TunnelClient } from '../../../src/agent/tunnel/tunnel-client.js';
import { isLoadBalancerTarget } from '../../../src/api/load-balancer.js';
import type { Event, Node, Service } from '../../../src/api/types/core-v1.generated.js';
import { EVENTS, NODES, SERVICES } from '../../../src/client/resources.js';
import type { TunnelTarget } from '../../../src/client/tunnel/tunnel-session.js';
import type { Client } from '../../../src/client/types.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { hostPortsModeFrom } from '../../../src/controlplane/load-balancer-host-ports.js';
import { loadCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueClientCertificate } from '../../../src/pki/certificates.js';
import { eventually } from '../../support/control-plane.js';

const NODE = 'lbhp-node-1';
const NODE_IP = '10.254.19.2';
const LB_IP = '10.254.19.200';

let dir: string;
let controlPlane: RunningControlPlane;
let admin: Client;
let backend: Server;
let backendPort: number;
const abort = new AbortController();
const dialed: TunnelTarget[] = [];
/** The services as the node's informer would hold them. */
let knownServices: Service[] = [];

/** The node network: the load balancer's address answers on port 80, nothing else does. */
function nodeNetwork(target: TunnelTarget): Promise<Duplex> {
  dialed.push(target);
  const port = target.host === LB_IP && target.port === 80 ? backendPort : 1;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

const services = () => admin.resource<Service>(SERVICES);

async function createLoadBalancer(
  name: string,
  ports: { name?: string; port: number; protocol?: string }[],
): Promise<void> {
  await services().create({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { type: 'LoadBalancer', selector: { app: name }, ports },
  });
  // No address pool runs in process: the address is set as the service controller would.
  const patched = await services().patch(
    'default',
    name,
    'merge',
    { status: { loadBalancer: { ingress: [{ ip: LB_IP, ipMode: 'VIP' }] } } },
    { subresource: 'status' },
  );
  knownServices = [...knownServices, patched];
}

async function publishedEvent(name: string): Promise<Event> {
  return eventually(async () => {
    const events = await admin.resource<Event>(EVENTS).list('default');
    return events.items.find(
      (event) => event.involvedObject?.name === name && event.reason === 'PublishedOnHostPort',
    );
  }, 15_000);
}

/** A GET of 127.0.0.1:port from the host: the body, or the error code. */
async function hostGet(port: number): Promise<string> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/hello`, { signal: AbortSignal.timeout(5_000) });
    return await response.text();
  } catch (error) {
    return `error: ${String((error as { cause?: { code?: string } }).cause?.code ?? error)}`;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkube-lbhp-'));
  const previous = process.env.TKUBE_LOAD_BALANCER_HOST_PORTS;
  process.env.TKUBE_LOAD_BALANCER_HOST_PORTS = 'always';
  try {
    controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0 });
  } finally {
    if (previous === undefined) delete process.env.TKUBE_LOAD_BALANCER_HOST_PORTS;
    else process.env.TKUBE_LOAD_BALANCER_HOST_PORTS = previous;
  }
  admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
  backend = createHttpServer((req, res) => res.end(`backend saw ${req.url}`));
  backendPort = await new Promise<number>((resolve) => {
    backend.listen(0, '127.0.0.1', () => resolve((backend.address() as { port: number }).port));
  });
  await admin.resource<Node>(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
  await admin.resource<Node>(NODES).patch(
    '',
    NODE,
    'merge',
    { status: { addresses: [{ type: 'InternalIP', address: NODE_IP }] } },
    {
      subresource: 'status',
    },
  );
  const read = (name: string) => readFileSync(join(dir, 'pki', name), 'utf8');
  const ca = loadCertificateAuthority(read('ca.crt'), read('ca.key'));
  const nodeCert = await issueClientCertificate(ca, {
    user: `system:node:${NODE}`,
    groups: ['system:nodes'],
  });
  void new TunnelClient({
    server: `https://127.0.0.1:${controlPlane.port}`,
    ca: ca.certificatePem,
    cert: nodeCert.certificatePem,
    key: nodeCert.privateKeyPem,
    nodeIP: NODE_IP,
    podCIDRs: () => [],
    // As the agent allows it: a TCP port of a LoadBalancer service's address.
    loadBalancerTarget: ({ host, port }) =>
      knownServices.some((service) => isLoadBalancerTarget(service, host, port)),
    dial: nodeNetwork,
    log: () => undefined,
  }).run(abort.signal);
  await eventually(async () => (controlPlane.apiServer.tunnels.has(NODE) ? true : undefined));
}, 60_000);

afterAll(async () => {
  abort.abort();
  await new Promise((resolve) => (backend ? backend.close(resolve) : resolve(undefined)));
  await controlPlane?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('LoadBalancer addresses on host ports', () => {
  it('publishes each TCP port of the address on 127.0.0.1, says where in an event, and forwards through a node tunnel', async () => {
    await createLoadBalancer('web', [
      { name: 'http', port: 80 },
      { name: 'dns', port: 5353, protocol: 'UDP' },
    ]);
    const event = await publishedEvent('web');
    const hostPort = controlPlane.loadBalancerHostPorts!.hostPortOf('default', 'web', LB_IP, 80)!;
    expect(hostPort).toBeGreaterThan(0);
    expect(event.type).toBe('Normal');
    expect(event.message).toBe(`${LB_IP}:80/TCP is published on the host at 127.0.0.1:${hostPort}`);
    // UDP is not forwarded: no host port stands for it.
    expect(controlPlane.loadBalancerHostPorts!.hostPortOf('default', 'web', LB_IP, 5353)).toBeUndefined();
    expect(await hostGet(hostPort)).toBe('backend saw /hello');
    expect(dialed).toContainEqual({ host: LB_IP, port: 80 });
  });

  it('resets the connection when the address does not answer inside the network', async () => {
    await createLoadBalancer('dead', [{ port: 81 }]);
    await publishedEvent('dead');
    const hostPort = controlPlane.loadBalancerHostPorts!.hostPortOf('default', 'dead', LB_IP, 81)!;
    expect(await hostGet(hostPort)).toMatch(/^error: /);
  });

  it('closes the host port when the service goes', async () => {
    const hostPort = controlPlane.loadBalancerHostPorts!.hostPortOf('default', 'web', LB_IP, 80)!;
    await services().delete('default', 'web');
    await eventually(async () =>
      controlPlane.loadBalancerHostPorts!.hostPortOf('default', 'web', LB_IP, 80) === undefined
        ? true
        : undefined,
    );
    expect(await hostGet(hostPort)).toBe('error: ECONNREFUSED');
  });

  it('takes the mode from the environment and refuses an unknown one', () => {
    expect(hostPortsModeFrom({})).toBe('auto');
    expect(hostPortsModeFrom({ TKUBE_LOAD_BALANCER_HOST_PORTS: 'never' })).toBe('never');
    expect(() => hostPortsModeFrom({ TKUBE_LOAD_BALANCER_HOST_PORTS: 'yes' })).toThrow(
      'TKUBE_LOAD_BALANCER_HOST_PORTS="yes": must be "always", "auto" or "never"',
    );
  });
});
