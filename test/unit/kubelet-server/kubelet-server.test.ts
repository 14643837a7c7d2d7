import { mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeletMetrics } from '../../../src/agent/kubelet/metrics.js';
import {
  containerIdForLogs,
  type KubeletServer,
  nodeSubresources,
  startKubeletServer,
} from '../../../src/agent/kubelet/server/index.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import type { ApiObject, Client, ResourceClient, ResourceRef } from '../../../src/client/types.js';
import {
  type CertificateAuthority,
  createCertificateAuthority,
} from '../../../src/pki/certificate-authority.js';
import {
  type IssuedCertificate,
  issueClientCertificate,
  issueServingCertificate,
} from '../../../src/pki/certificates.js';

/** Answers SubjectAccessReviews from a table of allowed `user verb subresource` and counts them. */
class ReviewClient implements Client {
  readonly identity = 'system:node:node-1';
  readonly reviews: Record<string, unknown>[] = [];
  constructor(readonly allowed: Set<string>) {}
  resource<T extends ApiObject>(ref: ResourceRef): ResourceClient<T> {
    const create = async (body: ApiObject) => {
      const spec = (body as { spec: Record<string, unknown> }).spec;
      if (ref.resource === 'tokenreviews') {
        const ok = spec.token === 'good-token';
        return {
          ...body,
          status: ok
            ? { authenticated: true, user: { username: 'token-user', groups: ['g'] } }
            : { authenticated: false },
        };
      }
      this.reviews.push(spec);
      const attributes = spec.resourceAttributes as { verb: string; subresource: string; name: string };
      return {
        ...body,
        status: {
          allowed: this.allowed.has(
            `${spec.user} ${attributes.verb} ${attributes.subresource} ${attributes.name}`,
          ),
        },
      };
    };
    return { ref, create } as unknown as ResourceClient<T>;
  }
  async close() {}
}

let ca: CertificateAuthority;
let admin: IssuedCertificate;
let viewer: IssuedCertificate;
let server: KubeletServer;
let client: ReviewClient;
let logDir: string;
let running = true;
const metrics = new KubeletMetrics('node-1');
metrics.runtimeOperation('run_podsandbox', 0.2, false);

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: {
    containers: [
      { name: 'app', image: 'x' },
      { name: 'waiting', image: 'x' },
    ],
  },
  status: {
    containerStatuses: [
      {
        name: 'app',
        image: 'x',
        imageID: '',
        ready: true,
        restartCount: 1,
        containerID: 'containerd://current',
        state: { running: { startedAt: '2024-05-01T10:00:00Z' } },
        lastState: { terminated: { exitCode: 1, containerID: 'containerd://old' } },
      },
      {
        name: 'waiting',
        image: 'x',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'ImagePullBackOff' } },
      },
    ],
  },
};

beforeAll(async () => {
  ca = await createCertificateAuthority({ commonName: 'test-ca' });
  [admin, viewer] = await Promise.all([
    issueClientCertificate(ca, { user: 'kube-apiserver-kubelet-client', groups: ['system:masters'] }),
    issueClientCertificate(ca, { user: 'viewer' }),
  ]);
  const serving = await issueServingCertificate(ca, {
    commonName: 'system:node:node-1',
    ipAddresses: ['127.0.0.1'],
  });
  logDir = join(tmpdir(), `tkube-kubelet-logs-${process.pid}-${Date.now()}`);
  await mkdir(logDir, { recursive: true });
  await writeFile(
    join(logDir, '1.log'),
    '2024-05-01T10:00:00Z stdout F now\n2024-05-01T10:00:01Z stdout F again\n',
  );
  await writeFile(join(logDir, '0.log'), '2024-05-01T09:00:00Z stderr F crashed\n');
  client = new ReviewClient(
    new Set([
      'kube-apiserver-kubelet-client get proxy node-1',
      'viewer get pods node-1',
      'token-user get healthz node-1',
      'viewer get metrics node-1',
    ]),
  );
  server = await startKubeletServer({
    nodeName: 'node-1',
    client,
    address: '127.0.0.1',
    port: 0,
    tls: {
      certificatePem: serving.certificatePem,
      privateKeyPem: serving.privateKeyPem,
      clientCaPem: ca.certificatePem,
    },
    host: {
      pods: () => [pod],
      metricsText: () => metrics.render(),
      containerStatus: async (id) =>
        id === 'current'
          ? { logPath: join(logDir, '1.log'), running }
          : id === 'old'
            ? { logPath: join(logDir, '0.log'), running: false }
            : undefined,
    },
  });
});

afterAll(async () => {
  await server?.close();
  await rm(logDir, { recursive: true, force: true });
});

function get(path: string, as?: IssuedCertificate, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path,
          ca: ca.certificatePem,
          ...(as ? { cert: as.certificatePem, key: as.privateKeyPem } : {}),
          headers,
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('the kubelet server', () => {
  it('serves the kubelet metrics at /metrics to callers allowed nodes/metrics', async () => {
    const answer = await get('/metrics', viewer);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.body).toContain('kubelet_node_name{node="node-1"} 1\n');
    expect(answer.body).toContain('kubelet_runtime_operations_total{operation_type="run_podsandbox"} 1\n');
    expect(nodeSubresources('/metrics/cadvisor')).toEqual(['metrics']);
    // The token user may read /healthz only.
    expect(await get('/metrics', undefined, { authorization: 'Bearer good-token' })).toMatchObject({
      status: 403,
    });
  });

  it('turns away callers without credentials and those the apiserver does not allow', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 401, body: 'Unauthorized' });
    expect(await get('/containerLogs/shop/web/app', viewer)).toMatchObject({
      status: 403,
      body: 'Forbidden (user=viewer, verb=get, resource=nodes, subresource(s)=[proxy])\n',
    });
    expect(await get('/healthz', undefined, { authorization: 'Bearer bad-token' })).toMatchObject({
      status: 401,
    });
  });

  it('authorizes /pods by nodes/pods and /healthz by nodes/healthz before nodes/proxy', async () => {
    const pods = await get('/pods', viewer);
    expect(pods.status).toBe(200);
    expect(JSON.parse(pods.body)).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [pod] });
    expect(await get('/healthz', undefined, { authorization: 'Bearer good-token' })).toMatchObject({
      status: 200,
      body: 'ok',
    });
    expect((await get('/healthz?verbose', admin)).body).toBe(
      '[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n',
    );
    expect(nodeSubresources('/pods')).toEqual(['pods', 'proxy']);
    expect(nodeSubresources('/healthz/ping')).toEqual(['healthz', 'proxy']);
    expect(nodeSubresources('/stats/summary')).toEqual(['stats']);
    expect(nodeSubresources('/logs/syslog')).toEqual(['log']);
    expect(nodeSubresources('/podsx')).toEqual(['proxy']);
    expect(nodeSubresources('/containerLogs/a/b/c')).toEqual(['proxy']);
  });

  it('serves the current and the previous container log with options', async () => {
    expect(await get('/containerLogs/shop/web/app', admin)).toMatchObject({
      status: 200,
      body: 'now\nagain\n',
    });
    expect((await get('/containerLogs/shop/web/app?tailLines=1&timestamps=true', admin)).body).toBe(
      '2024-05-01T10:00:01Z again\n',
    );
    expect((await get('/containerLogs/shop/web/app?tail=1', admin)).body).toBe('again\n');
    expect((await get('/containerLogs/shop/web/app?previous=true', admin)).body).toBe('crashed\n');
    expect((await get('/containerLogs/shop/web/app?limitBytes=2', admin)).body).toBe('no');
  });

  it('answers for unknown pods, containers and logs as the kubelet does', async () => {
    expect(await get('/containerLogs/shop/nope/app', admin)).toMatchObject({
      status: 404,
      body: 'pod "nope" does not exist',
    });
    expect(await get('/containerLogs/shop/web/nope', admin)).toMatchObject({
      status: 404,
      body: 'container "nope" not found in pod "web"',
    });
    expect(await get('/containerLogs/shop/web/waiting', admin)).toMatchObject({
      status: 400,
      body: 'container "waiting" in pod "web" is waiting to start: trying and failing to pull image',
    });
    expect(await get('/containerLogs/shop/web/app?tailLines=x', admin)).toMatchObject({
      status: 400,
      body: '{"message": "Unable to decode query."}',
    });
    expect(await get('/containerLogs/shop/web/app?tailLines=-1', admin)).toMatchObject({ status: 422 });
    expect(await get('/nowhere', admin)).toMatchObject({ status: 404 });
  });

  it('streams a followed log until the container stops', async () => {
    running = true;
    const pending = get('/containerLogs/shop/web/app?follow=true&tailLines=0', admin);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await writeFile(join(logDir, '1.log'), '2024-05-01T10:00:02Z stdout F more\n', { flag: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    const result = await pending;
    expect(result.status).toBe(200);
    expect(result.body).toBe('more\n');
  });
});

describe('which container instance logs come from', () => {
  const status = (s: Record<string, unknown>): Pod => ({
    metadata: { name: 'p' },
    status: {
      containerStatuses: [{ name: 'c', image: 'x', imageID: '', ready: false, restartCount: 0, ...s }],
    },
  });

  it('prefers the running instance and finds the previous one', () => {
    expect(containerIdForLogs(pod, 'app', false)).toBe('containerd://current');
    expect(containerIdForLogs(pod, 'app', true)).toBe('containerd://old');
    expect(
      containerIdForLogs(
        status({ state: { terminated: { exitCode: 0, containerID: 'containerd://t' } } }),
        'c',
        false,
      ),
    ).toBe('containerd://t');
  });

  it('explains why there is nothing to show', () => {
    expect(() => containerIdForLogs(status({ state: { running: {} } }), 'c', true)).toThrow(
      'previous terminated container "c" in pod "p" not found',
    );
    expect(() =>
      containerIdForLogs(status({ state: { waiting: { reason: 'ContainerCreating' } } }), 'c', false),
    ).toThrow('container "c" in pod "p" is waiting to start: ContainerCreating');
    expect(() =>
      containerIdForLogs(status({ state: { waiting: { reason: 'ErrImagePull' } } }), 'c', false),
    ).toThrow('container "c" in pod "p" is waiting to start: image can\'t be pulled');
    expect(() => containerIdForLogs(status({ state: {} }), 'c', false)).toThrow(
      'container "c" in pod "p" is waiting to start - no logs yet',
    );
    expect(() => containerIdForLogs(status({}), 'other', false)).toThrow(
      'container "other" in pod "p" is not available',
    );
  });
});
