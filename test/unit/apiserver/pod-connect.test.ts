// pods/exec, pods/attach, pods/portforward on the in-process control plane with real kubectl:
// upstream's checks (pod, container, node) and its "Upgrade request required" for a request that
// is no upgrade, so a plain GET never answers with the Pod (issue 21).
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import type { Role, RoleBinding } from '../../../src/api/types/rbac-v1.generated.js';
import { NAMESPACES, NODES, PODS, ROLE_BINDINGS, ROLES } from '../../../src/client/resources.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { writeAdminKubeconfig } from '../../support/admin-kubeconfig.js';

let dir: string;
let controlPlane: RunningControlPlane;
let kubeconfig: string;

const pod = (name: string, spec: Pod['spec']): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'connect' },
  spec,
});

/** kubectl.1.28 (SPDY only), installed next to the kubectl on the PATH. */
function kubectl128(): string {
  const dir = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'kubectl')));
  if (!dir) throw new Error('kubectl is not on the PATH');
  return join(dirname(realpathSync(join(dir, 'kubectl'))), 'kubectl.1.28');
}

async function kubectl(binary: string, ...args: string[]) {
  const result = await execa(binary, ['--kubeconfig', kubeconfig, ...args], {
    reject: false,
    timeout: 20_000,
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}
const raw = (path: string) => kubectl('kubectl', 'get', '--raw', `/api/v1/namespaces/connect/pods/${path}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkube-podconnect-'));
  controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0 });
  const admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
  await admin.resource<Node>(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
  // Port 1: nothing listens, so a dial fails at once.
  const status = {
    addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 1 } },
  };
  await admin.resource<Node>(NODES).patch('', 'node-1', 'merge', { status }, { subresource: 'status' });
  await admin
    .resource(NAMESPACES)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'connect' } });
  const pods = admin.resource<Pod>(PODS);
  await pods.create(pod('one', { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }] }));
  await pods.create(
    pod('two', {
      nodeName: 'node-1',
      initContainers: [{ name: 'setup', image: 'busybox' }],
      containers: [
        { name: 'app', image: 'busybox' },
        { name: 'side', image: 'busybox' },
      ],
    }),
  );
  await pods.create(pod('pending', { containers: [{ name: 'app', image: 'busybox' }] }));
  // bob may read pods, nothing more.
  await admin.resource<Role>(ROLES).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'pod-reader', namespace: 'connect' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
  });
  await admin.resource<RoleBinding>(ROLE_BINDINGS).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'bob-reads', namespace: 'connect' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  kubeconfig = writeAdminKubeconfig(join(dir, 'kubeconfig'), controlPlane.port, join(dir, 'pki'), 'connect');
}, 60_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('pods/exec, attach, portforward without an upgrade', () => {
  it('answers 400 "Upgrade request required", never the Pod', async () => {
    for (const path of [
      'one/exec?command=ls&stdout=true',
      'one/attach?stdout=true',
      'one/portforward?ports=80',
    ]) {
      const result = await raw(path);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('Error from server (BadRequest): Upgrade request required');
    }
  });

  it('checks the pod, the container and the node first, with upstream texts', async () => {
    expect((await raw('gone/exec?command=ls')).stderr).toContain(
      'Error from server (NotFound): pods "gone" not found',
    );
    expect((await raw('one/exec?command=ls&container=nope')).stderr).toContain(
      'Error from server (BadRequest): container nope is not valid for pod one',
    );
    expect((await raw('two/attach')).stderr).toContain(
      'Error from server (BadRequest): a container name must be specified for pod two, choose one of: [app side] or one of the init containers: [setup]',
    );
    expect((await raw('two/exec?command=ls&container=setup')).stderr).toContain('Upgrade request required');
    expect((await raw('pending/exec?command=ls')).stderr).toContain(
      'Error from server (BadRequest): pod pending does not have a host assigned',
    );
    expect((await raw('pending/portforward?ports=80')).stderr).toContain(
      'pod pending does not have a host assigned',
    );
  });
});

describe('who may connect', () => {
  it.each(['kubectl', kubectl128()])(
    "%s: a user who may get pods but not create pods/exec gets 403 with upstream's message",
    async (binary) => {
      expect((await kubectl(binary, '--as', 'bob', 'get', 'pod', 'one', '-o', 'name')).stdout).toBe(
        'pod/one',
      );
      const exec = await kubectl(binary, '--as', 'bob', 'exec', 'one', '--', 'true');
      expect(exec.code).not.toBe(0);
      expect(exec.stderr).toContain(
        'Error from server (Forbidden): pods "one" is forbidden: User "bob" cannot create resource "pods/exec" in API group "" in the namespace "connect"',
      );
    },
  );

  it("a node's credentials exec into no pod: not its own node's, nor (not even read) another's", async () => {
    const asNode = (node: string) =>
      kubectl(
        'kubectl',
        '--as',
        `system:node:${node}`,
        '--as-group',
        'system:nodes',
        'exec',
        'one',
        '--',
        'true',
      );
    expect((await asNode('node-1')).stderr).toContain(
      'pods "one" is forbidden: User "system:node:node-1" cannot create resource "pods/exec" in API group "" in the namespace "connect"',
    );
    // Nor straight at the kubelet: its /exec asks the apiserver (SubjectAccessReview) whether the
    // caller may create nodes/proxy of that node, which no node may.
    const canI = await kubectl(
      'kubectl',
      'auth',
      'can-i',
      'create',
      'nodes/node-1',
      '--subresource=proxy',
      '--as',
      'system:node:node-2',
      '--as-group',
      'system:nodes',
    );
    expect(canI.stdout).toBe('no');
    expect((await asNode('node-2')).stderr).toContain(
      'pods "one" is forbidden: User "system:node:node-2" cannot get resource "pods" in API group "" in the namespace "connect": no relationship found between node \'node-2\' and this object',
    );
  });
});

describe('upgrade requests', () => {
  it.each(['kubectl', kubectl128()])(
    '%s exec reaches for the kubelet and reports the dial error',
    async (binary) => {
      const result = await kubectl(binary, 'exec', 'one', '--', 'true');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        'Internal error occurred: error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused',
      );
    },
  );

  /** A WebSocket upgrade to pods/exec with `headers` over the handshake's; the HTTP answer. */
  function webSocketUpgrade(headers: Record<string, string>): Promise<{ code: number; body: string }> {
    const read = (name: string) => readFileSync(join(dir, 'pki', name));
    return new Promise((resolve, reject) => {
      const outgoing = request({
        host: '127.0.0.1',
        port: controlPlane.port,
        path: '/api/v1/namespaces/connect/pods/one/exec?command=true&stdout=true',
        ca: read('ca.crt'),
        cert: read('admin.crt'),
        key: read('admin.key'),
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-protocol': 'v5.channel.k8s.io',
          ...headers,
        },
      });
      outgoing.on('upgrade', () => reject(new Error('upgraded')));
      outgoing.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ code: response.statusCode ?? 0, body }));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  it("answers a broken WebSocket handshake with 400 and gorilla/websocket's text, before any dial", async () => {
    const badKey = await webSocketUpgrade({ 'sec-websocket-key': 'short' });
    expect(badKey.code).toBe(400);
    expect(JSON.parse(badKey.body)).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message:
        "websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte in length",
    });
    const badVersion = await webSocketUpgrade({ 'sec-websocket-version': '8' });
    expect(badVersion.code).toBe(400);
    expect(JSON.parse(badVersion.body).message).toBe(
      "websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header",
    );
  });

  it('reports a kubelet it cannot reach for a v5 WebSocket as a 500 Status, so kubectl falls back and says why', async () => {
    const answer = await webSocketUpgrade({});
    expect(answer.code).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: 'Status',
      reason: 'InternalError',
      message:
        'Internal error occurred: error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused',
    });
  });
});
