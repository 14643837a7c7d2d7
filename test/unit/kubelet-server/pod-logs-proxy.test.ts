// pods/log end to end without Docker: the in-process control plane proxies to a kubelet server
// on loopback (which authorizes the apiserver with a real SubjectAccessReview), and real
// kubectl reads the logs. nodes/proxy is in node-proxy.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeletServer, startKubeletServer } from '../../../src/agent/kubelet/server/index.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { NAMESPACES, NODES, PODS } from '../../../src/client/resources.js';
import type { Client } from '../../../src/client/types.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { loadCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueServingCertificate } from '../../../src/pki/certificates.js';
import { writeAdminKubeconfig } from '../../support/admin-kubeconfig.js';

let dir: string;
let controlPlane: RunningControlPlane;
let kubelet: KubeletServer;
let admin: Client;
let kubeconfig: string;
let running = true;

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'logs' },
  spec: {
    nodeName: 'node-1',
    initContainers: [{ name: 'setup', image: 'busybox' }],
    containers: [
      { name: 'app', image: 'busybox' },
      { name: 'side', image: 'busybox' },
    ],
  },
};

const kubeletPod: Pod = {
  ...pod,
  status: {
    containerStatuses: [
      {
        name: 'app',
        image: 'busybox',
        imageID: '',
        ready: true,
        restartCount: 0,
        containerID: 'containerd://app1',
        state: { running: { startedAt: '2024-05-01T10:00:00Z' } },
      },
      {
        name: 'side',
        image: 'busybox',
        imageID: '',
        ready: true,
        restartCount: 0,
        containerID: 'containerd://side1',
        state: { running: { startedAt: '2024-05-01T10:00:00Z' } },
      },
    ],
  },
};

async function kubectl(...args: string[]) {
  const result = await execa('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    reject: false,
    timeout: 20_000,
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkube-podlogs-'));
  controlPlane = await startControlPlane({ stateDir: dir, apiPort: 0 });
  const pki = join(dir, 'pki');
  const read = (name: string) => readFileSync(join(pki, name), 'utf8');
  const ca = loadCertificateAuthority(read('ca.crt'), read('ca.key'));
  const serving = await issueServingCertificate(ca, {
    commonName: 'system:node:node-1',
    ipAddresses: ['127.0.0.1'],
  });
  writeFileSync(
    join(dir, 'app.log'),
    '2024-05-01T10:00:00Z stdout F hello\n2024-05-01T10:00:01Z stderr F world\n',
  );
  const node = controlPlane.loopbackClient(
    { name: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] },
    'kubelet',
  );
  kubelet = await startKubeletServer({
    nodeName: 'node-1',
    client: node,
    address: '127.0.0.1',
    port: 0,
    tls: {
      certificatePem: serving.certificatePem,
      privateKeyPem: serving.privateKeyPem,
      clientCaPem: ca.certificatePem,
    },
    host: {
      pods: () => [kubeletPod],
      containerStatus: async (id) => (id === 'app1' ? { logPath: join(dir, 'app.log'), running } : undefined),
    },
  });
  admin = controlPlane.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
  await admin.resource<Node>(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
  const status = {
    addresses: [
      { type: 'Hostname', address: 'node-1' },
      { type: 'InternalIP', address: '127.0.0.1' },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } },
  };
  await admin.resource<Node>(NODES).patch('', 'node-1', 'merge', { status }, { subresource: 'status' });
  await admin
    .resource(NAMESPACES)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'logs' } });
  await admin.resource<Pod>(PODS).create(pod);
  await admin.resource<Pod>(PODS).create({
    ...pod,
    metadata: { name: 'pending', namespace: 'logs' },
    spec: { ...pod.spec!, nodeName: undefined },
  });
  kubeconfig = writeAdminKubeconfig(join(dir, 'kubeconfig'), controlPlane.port, pki, 'logs');
}, 60_000);

afterAll(async () => {
  await kubelet?.close();
  await controlPlane?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('pods/log through the apiserver', () => {
  it('streams the container log from the kubelet, with options', async () => {
    expect(await kubectl('logs', 'web', '-c', 'app')).toMatchObject({ code: 0, stdout: 'hello\nworld' });
    expect(await kubectl('logs', 'web', '-c', 'app', '--tail', '1', '--timestamps')).toMatchObject({
      code: 0,
      stdout: '2024-05-01T10:00:01Z world',
    });
    expect(await kubectl('logs', 'web', '-c', 'app', '--limit-bytes', '3')).toMatchObject({
      code: 0,
      stdout: 'hel',
    });
  });

  it('follows with -f until the container stops', async () => {
    running = true;
    const follow = kubectl('logs', '-f', 'web', '-c', 'app', '--tail', '0');
    await new Promise((resolve) => setTimeout(resolve, 700));
    writeFileSync(join(dir, 'app.log'), '2024-05-01T10:00:02Z stdout F later\n', { flag: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    running = false;
    expect(await follow).toMatchObject({ code: 0, stdout: 'later' });
  });

  it('answers the apiserver validation errors', async () => {
    const raw = (query: string) => kubectl('get', '--raw', `/api/v1/namespaces/logs/pods/web/log${query}`);
    expect((await raw('')).stderr).toContain(
      'a container name must be specified for pod web, choose one of: [setup app side]',
    );
    expect((await raw('?container=nope')).stderr).toContain('container nope is not valid for pod web');
    expect((await raw('?container=app&tailLines=-1')).stderr).toContain(
      'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    );
    expect((await raw('?container=app&sinceSeconds=5&sinceTime=2024-05-01T10:00:00Z')).stderr).toContain(
      'at most one of `sinceTime` or `sinceSeconds` may be specified',
    );
    expect(await kubectl('logs', 'web', '-c', 'app', '--previous')).toMatchObject({
      code: 1,
      stderr: 'Error from server (BadRequest): previous terminated container "app" in pod "web" not found',
    });
    expect(await kubectl('get', '--raw', '/api/v1/namespaces/logs/pods/missing/log')).toMatchObject({
      code: 1,
      stderr: 'Error from server (NotFound): pods "missing" not found',
    });
    expect(
      await kubectl('get', '--raw', '/api/v1/namespaces/logs/pods/pending/log?container=app'),
    ).toMatchObject({ code: 0, stdout: '' });
  });

  it('writes the kubelet failure into the stream once it has begun, as the kubelet does', async () => {
    expect(await kubectl('logs', 'web', '-c', 'side')).toMatchObject({
      code: 0,
      stdout: 'unable to retrieve container logs for containerd://side1',
    });
  });
});
