// Admission webhooks with URL clientConfigs against a real apiserver in this process (real TLS,
// real SQLite) and a webhook HTTPS server written here: mutation by JSONPatch, denial with the
// webhook's message, v1beta1 reviews, selectors and match conditions, dry run and sideEffects,
// reinvocation, warnings, the configurations' exemption, metrics, and the bad inputs (garbage, an
// invalid patch, a 10 MiB response, a certificate for another name, unreachable URLs and Services,
// a slow webhook) under each failurePolicy.
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, type CallResponse, httpsCaller } from '../../support/https-call.js';
import {
  jsonPatch,
  reviewResponse,
  startWebhookServer,
  type WebhookServer,
} from '../../support/webhook-server.js';

let controlPlane: RunningControlPlane;
let call: Call;
let server: WebhookServer;
let wrongName: WebhookServer;
/** Serves as the Service `hooked` in `default`: its certificate names only the Service's DNS name. */
let backend: WebhookServer;
/** Endpoints may not be loopback addresses: the Service's backend listens on the host's own address. */
const hostAddress =
  Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === 'IPv4' && !address.internal)?.address ?? '127.0.0.1';
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-webhooks-'));

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
  server = await startWebhookServer();
  wrongName = await startWebhookServer({ dnsNames: ['wrong.example'] });
  backend = await startWebhookServer({ dnsNames: ['hooked.default.svc'] }, hostAddress);
  server.handlers.set('/allow', (review) => reviewResponse(review, { allowed: true }));
  wrongName.handlers.set('/allow', (review) => reviewResponse(review, { allowed: true }));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await wrongName?.close();
  await backend?.close();
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
let sequence = 0;

/** A webhook on configmap creates and updates of objects labelled `scenario`. */
function webhook(scenario: string, name: string, url: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url, caBundle: server.caBundle },
    rules: [
      { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    ],
    objectSelector: { matchLabels: { scenario } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
    ...extra,
  };
}

/**
 * Stores a configuration whose first webhook records that the configuration is in force, and
 * waits until it is: admission reads configurations from a watch, as upstream's informers do.
 */
async function configure(
  kind: 'mutating' | 'validating',
  scenario: string,
  webhooks: unknown[],
): Promise<void> {
  const seen = `/seen/${scenario}`;
  server.handlers.set(seen, (review) => reviewResponse(review, { allowed: true }));
  const body = {
    metadata: { name: scenario },
    webhooks: [webhook(scenario, `seen.${scenario}.example.com`, server.url(seen)), ...webhooks],
  };
  const created = await call('POST', `${ADMISSION}/${kind}webhookconfigurations`, body);
  expect(created.status, created.text).toBe(201);
  await eventually(async () => {
    await createConfigMap(scenario);
    return (server.received.get(seen)?.length ?? 0) > 0 ? true : undefined;
  });
}

function createConfigMap(
  scenario: string,
  labels: Record<string, string> = {},
  options: { namespace?: string; query?: string } = {},
): Promise<CallResponse> {
  const namespace = options.namespace ?? 'default';
  return call('POST', `/api/v1/namespaces/${namespace}/configmaps${options.query ?? ''}`, {
    metadata: { name: `${scenario}-${++sequence}`, labels: { scenario, ...labels } },
    data: { a: '1' },
  });
}

function message(response: CallResponse): string {
  return String(response.json().message);
}

describe('webhook configurations', () => {
  it('are validated with upstream field errors and defaulted', async () => {
    const invalid = await call('POST', `${ADMISSION}/validatingwebhookconfigurations`, {
      metadata: { name: 'invalid' },
      webhooks: [
        {
          name: 'short.name',
          clientConfig: { url: 'http://example.com/x?a=b' },
          sideEffects: 'Some',
          admissionReviewVersions: ['v2'],
          timeoutSeconds: 31,
        },
      ],
    });
    expect(invalid.status).toBe(422);
    const causes = (invalid.json().details as { causes: { field: string; message: string }[] }).causes;
    expect(causes.map((cause) => `${cause.field}: ${cause.message}`)).toEqual([
      'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
    ]);
    const valid = await call('POST', `${ADMISSION}/mutatingwebhookconfigurations`, {
      metadata: { name: 'defaults' },
      webhooks: [
        {
          name: 'defaults.example.com',
          clientConfig: { service: { namespace: 'default', name: 'x' } },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    expect(valid.status, valid.text).toBe(201);
    expect((valid.json().webhooks as unknown[])[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
      rules: [{ scope: '*' }],
      clientConfig: { service: { port: 443 } },
    });
    expect((await call('DELETE', `${ADMISSION}/mutatingwebhookconfigurations/defaults`)).status).toBe(200);
  });
});

describe('mutating webhooks', () => {
  it('patch the object with a JSONPatch, in v1 and v1beta1 reviews', async () => {
    server.handlers.set('/mutate', (review) =>
      reviewResponse(review, {
        allowed: true,
        ...jsonPatch([
          { op: 'add', path: '/metadata/labels/mutated', value: review.apiVersion.split('/')[1] },
          { op: 'add', path: '/metadata/annotations', value: { 'webhook.example.com/seen': 'yes' } },
        ]),
        warnings: ['mutated by the test webhook'],
      }),
    );
    await configure('mutating', 'mutate', [webhook('mutate', 'mutate.example.com', server.url('/mutate'))]);
    const created = await createConfigMap('mutate');
    expect(created.status).toBe(201);
    const object = created.json() as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    };
    expect(object.metadata.labels.mutated).toBe('v1');
    expect(object.metadata.annotations['webhook.example.com/seen']).toBe('yes');
    expect(String(created.headers.warning)).toContain('mutated by the test webhook');
    const review = server.received.get('/mutate')!.at(-1)!;
    expect(review).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      namespace: 'default',
      operation: 'CREATE',
      dryRun: false,
      userInfo: { username: 'kubernetes-admin' },
    });

    server.handlers.set('/mutate-beta', (review) =>
      reviewResponse(review, {
        allowed: true,
        ...jsonPatch([
          { op: 'add', path: '/metadata/labels/mutated', value: review.apiVersion.split('/')[1] },
        ]),
      }),
    );
    await configure('mutating', 'mutate-beta', [
      webhook('mutate-beta', 'beta.example.com', server.url('/mutate-beta'), {
        admissionReviewVersions: ['v1beta1'],
      }),
    ]);
    const beta = await createConfigMap('mutate-beta');
    expect((beta.json() as { metadata: { labels: Record<string, string> } }).metadata.labels.mutated).toBe(
      'v1beta1',
    );
  });

  it('see a built-in object converted to the version they match under matchPolicy Equivalent', async () => {
    // autoscaling/v1 keeps only a CPU target: the webhook sees it, and its patch comes back into v2.
    server.handlers.set('/hpa-v1', (review) =>
      reviewResponse(review, {
        allowed: true,
        ...jsonPatch([{ op: 'replace', path: '/spec/targetCPUUtilizationPercentage', value: 70 }]),
      }),
    );
    await configure('mutating', 'hpa-equivalent', [
      webhook('hpa-equivalent', 'hpa.example.com', server.url('/hpa-v1'), {
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: ['autoscaling'],
            apiVersions: ['v1'],
            resources: ['horizontalpodautoscalers'],
          },
        ],
        matchPolicy: 'Equivalent',
      }),
    ]);
    const created = await call('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', {
      metadata: { name: 'equivalent', labels: { scenario: 'hpa-equivalent' } },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const review = server.received.get('/hpa-v1')!.at(-1)! as Record<string, unknown>;
    expect(review).toMatchObject({
      kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      requestKind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
      object: { apiVersion: 'autoscaling/v1', spec: { targetCPUUtilizationPercentage: 50, maxReplicas: 5 } },
    });
    expect((review.object as { spec: Record<string, unknown> }).spec.metrics).toBeUndefined();
    const stored = created.json() as { apiVersion: string; spec: { metrics: unknown[] } };
    expect(stored.apiVersion).toBe('autoscaling/v2');
    expect(stored.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      },
    ]);
  });

  it('leave a patched object defaulted and pruned as a decoded one is', async () => {
    server.handlers.set('/init-container', (review) =>
      reviewResponse(review, {
        allowed: true,
        ...jsonPatch([
          { op: 'add', path: '/spec/initContainers', value: [{ name: 'init', image: 'busybox:local' }] },
          { op: 'add', path: '/spec/notAField', value: true },
        ]),
      }),
    );
    const created = await call('POST', `${ADMISSION}/mutatingwebhookconfigurations`, {
      metadata: { name: 'init-container' },
      webhooks: [
        {
          ...webhook('init-container', 'init-container.example.com', server.url('/init-container')),
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        },
      ],
    });
    expect(created.status).toBe(201);
    const pod = await eventually(async () => {
      const response = await call('POST', '/api/v1/namespaces/default/pods', {
        metadata: { name: `defaulted-${++sequence}`, labels: { scenario: 'init-container' } },
        spec: { containers: [{ name: 'app', image: 'busybox:local' }] },
      });
      expect(response.status, response.text).toBe(201);
      const object = response.json() as {
        spec: Record<string, unknown> & { initContainers?: Record<string, unknown>[] };
      };
      return object.spec.initContainers ? object : undefined;
    });
    expect(pod.spec.initContainers![0]).toMatchObject({
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
    });
    expect(pod.spec.notAField).toBeUndefined();
  });

  it('reinvoke an IfNeeded webhook once when a later webhook changed the object', async () => {
    server.handlers.set('/first', (review) => {
      const labels = (review.request.object as { metadata: { labels: Record<string, string> } }).metadata
        .labels;
      return reviewResponse(review, {
        allowed: true,
        ...jsonPatch([
          { op: 'add', path: '/metadata/labels/first-saw-second', value: String('second' in labels) },
        ]),
      });
    });
    server.handlers.set('/second', (review) =>
      reviewResponse(review, {
        allowed: true,
        ...jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'yes' }]),
      }),
    );
    await configure('mutating', 'reinvoke', [
      webhook('reinvoke', 'first.example.com', server.url('/first'), { reinvocationPolicy: 'IfNeeded' }),
      webhook('reinvoke', 'second.example.com', server.url('/second')),
    ]);
    const before = server.received.get('/first')?.length ?? 0;
    const created = await createConfigMap('reinvoke');
    expect(created.status).toBe(201);
    expect(
      (created.json() as { metadata: { labels: Record<string, string> } }).metadata.labels,
    ).toMatchObject({
      second: 'yes',
      'first-saw-second': 'true',
    });
    expect(server.received.get('/first')!.length - before).toBe(2);
  });

  it('answer an invalid JSONPatch with an internal error whatever the failurePolicy', async () => {
    server.handlers.set('/bad-patch', (review) =>
      reviewResponse(review, { allowed: true, ...jsonPatch([{ op: 'remove', path: '/no/such/field' }]) }),
    );
    await configure('mutating', 'bad-patch', [
      webhook('bad-patch', 'bad-patch.example.com', server.url('/bad-patch'), { failurePolicy: 'Ignore' }),
    ]);
    const created = await createConfigMap('bad-patch');
    expect(created.status).toBe(500);
    expect(created.json().reason).toBe('InternalError');
    expect(message(created)).toMatch(/^Internal error occurred: /);
  });
});

describe('validating webhooks', () => {
  it('deny with the webhook message and code, honour namespace selectors and match conditions', async () => {
    server.handlers.set('/deny', (review) => {
      const labels = (review.request.object as { metadata: { labels: Record<string, string> } }).metadata
        .labels;
      return labels.deny === 'true'
        ? reviewResponse(review, {
            allowed: false,
            status: { code: 403, reason: 'Forbidden', message: 'label deny is set' },
          })
        : reviewResponse(review, { allowed: true, warnings: ['checked'] });
    });
    const namespace = await call('POST', '/api/v1/namespaces', { metadata: { name: 'excluded' } });
    expect(namespace.status).toBe(201);
    await configure('validating', 'deny', [
      webhook('deny', 'deny.example.com', server.url('/deny'), {
        matchConditions: [{ name: 'not-excluded', expression: "request.namespace != 'excluded'" }],
      }),
    ]);
    const denied = await createConfigMap('deny', { deny: 'true' });
    expect(denied.status).toBe(403);
    expect(denied.json()).toMatchObject({
      reason: 'Forbidden',
      message: 'admission webhook "deny.example.com" denied the request: label deny is set',
    });
    const allowed = await createConfigMap('deny');
    expect(allowed.status).toBe(201);
    expect(String(allowed.headers.warning)).toContain('checked');
    const excluded = await createConfigMap('deny', { deny: 'true' }, { namespace: 'excluded' });
    expect(excluded.status).toBe(201);
  });

  it('receive dry-run requests with dryRun set (v1 admits only webhooks without side effects)', async () => {
    await configure('validating', 'dry-run', [
      webhook('dry-run', 'none.example.com', server.url('/allow-dry'), { sideEffects: 'None' }),
    ]);
    server.handlers.set('/allow-dry', (review) => reviewResponse(review, { allowed: true }));
    const dry = await createConfigMap('dry-run', {}, { query: '?dryRun=All' });
    expect(dry.status).toBe(201);
    expect(server.received.get('/allow-dry')!.at(-1)!.dryRun).toBe(true);
  });

  it('never call webhooks for webhook configurations', async () => {
    server.handlers.set('/deny-all', (review) => reviewResponse(review, { allowed: false }));
    const created = await call('POST', `${ADMISSION}/validatingwebhookconfigurations`, {
      metadata: { name: 'deny-all' },
      webhooks: [
        {
          ...webhook('x', 'deny-all.example.com', server.url('/deny-all')),
          rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
          objectSelector: {},
          namespaceSelector: { matchLabels: { 'no-such': 'namespace' } },
        },
      ],
    });
    expect(created.status).toBe(201);
    // The webhook selects cluster-scoped objects (the namespace selector ignores them): a
    // configuration is one, and still deletable.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const deleted = await call('DELETE', `${ADMISSION}/validatingwebhookconfigurations/deny-all`);
    expect(deleted.status).toBe(200);
    expect(server.received.get('/deny-all') ?? []).toHaveLength(0);
  });
});

describe('webhook failures under each failurePolicy', () => {
  const bad: [string, () => string, (path: string) => void][] = [
    ['garbage', () => server.url('/garbage'), (path) => server.handlers.set(path, () => 'this is not json')],
    ['wrong-name', () => wrongName.url('/allow'), () => undefined],
    ['unreachable', () => 'https://127.0.0.1:1/', () => undefined],
    [
      'slow',
      () => server.url('/slow'),
      (path) =>
        server.handlers.set(path, async (review) => {
          await new Promise((resolve) => setTimeout(resolve, 2500));
          return reviewResponse(review, { allowed: true });
        }),
    ],
    [
      'wrong-uid',
      () => server.url('/wrong-uid'),
      (path) =>
        server.handlers.set(path, (review) => ({
          ...reviewResponse(review, { allowed: true }),
          response: { uid: 'x', allowed: true },
        })),
    ],
  ];
  const expected: Record<string, RegExp> = {
    garbage: /received invalid webhook response: /,
    'wrong-name':
      /failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/allow\?timeout=1s": .*(altnames|IP)/,
    unreachable: /failed to call webhook: Post "https:\/\/127\.0\.0\.1:1\/\?timeout=1s": .*ECONNREFUSED/,
    slow: /failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=1s": context deadline exceeded/,
    'wrong-uid': /received invalid webhook response: expected response.uid="[^"]+", got "x"/,
  };

  it.each(bad)('%s: Fail answers failed calling webhook, Ignore admits', async (name, url, setUp) => {
    const path = new URL(url()).pathname;
    setUp(path);
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const scenario = `${name}-${failurePolicy.toLowerCase()}`;
      await configure('validating', scenario, [
        {
          ...webhook(scenario, `${scenario}.example.com`, url(), { failurePolicy, timeoutSeconds: 1 }),
          // The wrong-name server's CA is trusted, so that only the name is wrong.
          clientConfig: {
            url: url(),
            caBundle: name === 'wrong-name' ? wrongName.caBundle : server.caBundle,
          },
        },
      ]);
      const started = Date.now();
      const response = await createConfigMap(scenario);
      expect(Date.now() - started).toBeLessThan(2_000);
      if (failurePolicy === 'Ignore') {
        expect(response.status, response.text).toBe(201);
        continue;
      }
      expect(response.status).toBe(500);
      expect(response.json().reason).toBe('InternalError');
      expect(message(response)).toMatch(
        new RegExp(
          `^Internal error occurred: failed calling webhook "${scenario}\\.example\\.com": ${expected[name]!.source}`,
        ),
      );
    }
  });

  it('accepts a valid 10 MiB response', async () => {
    server.handlers.set('/big', (review) =>
      JSON.stringify({ ...reviewResponse(review, { allowed: true }), padding: 'x'.repeat(10 * 1024 * 1024) }),
    );
    await configure('validating', 'big', [webhook('big', 'big.example.com', server.url('/big'))]);
    const response = await createConfigMap('big');
    expect(response.status).toBe(201);
  });

  it('reports a Service without Endpoints as a call failure', async () => {
    const service = await call('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'no-backends' },
      spec: { ports: [{ port: 443, targetPort: 8443 }] },
    });
    expect(service.status).toBe(201);
    await configure('validating', 'service', [
      {
        ...webhook('service', 'service.example.com', ''),
        clientConfig: {
          service: { namespace: 'default', name: 'no-backends', path: '/validate' },
          caBundle: server.caBundle,
        },
      },
    ]);
    const response = await createConfigMap('service');
    expect(response.status).toBe(500);
    expect(message(response)).toMatch(
      /^Internal error occurred: failed calling webhook "service\.example\.com": failed to call webhook: Post "https:\/\/no-backends\.default\.svc(:443)?\/validate\?timeout=5s": endpoints "no-backends" not found/,
    );
  });

  it('calls a Service-backed webhook at a ready endpoint with the Service DNS name as server name', async () => {
    backend.handlers.set('/label', (review) =>
      reviewResponse(review, {
        allowed: true,
        ...jsonPatch([{ op: 'add', path: '/metadata/labels/via', value: 'service' }]),
      }),
    );
    const pod = await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'hook-backend' },
      spec: { containers: [{ name: 'hook', image: 'hook:local' }] },
    });
    expect(pod.status, pod.text).toBe(201);
    const status = await call('PUT', '/api/v1/namespaces/default/pods/hook-backend/status', {
      ...pod.json(),
      status: { phase: 'Running', podIP: hostAddress, podIPs: [{ ip: hostAddress }] },
    });
    expect(status.status, status.text).toBe(200);
    const service = await call('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'hooked' },
      spec: { ports: [{ name: 'https', port: 8443, targetPort: backend.port }] },
    });
    expect(service.status, service.text).toBe(201);
    const endpoints = await call('POST', '/api/v1/namespaces/default/endpoints', {
      metadata: { name: 'hooked' },
      subsets: [
        {
          addresses: [
            { ip: hostAddress, targetRef: { kind: 'Pod', namespace: 'default', name: 'hook-backend' } },
          ],
          ports: [{ name: 'https', port: backend.port }],
        },
      ],
    });
    expect(endpoints.status, endpoints.text).toBe(201);
    await configure('mutating', 'via-service', [
      {
        ...webhook('via-service', 'via-service.example.com', ''),
        clientConfig: {
          service: { namespace: 'default', name: 'hooked', port: 8443, path: '/label' },
          caBundle: backend.caBundle,
        },
      },
    ]);
    const created = await createConfigMap('via-service');
    expect(created.status, created.text).toBe(201);
    expect((created.json() as { metadata: { labels: Record<string, string> } }).metadata.labels.via).toBe(
      'service',
    );
  });

  it('counts calls in the webhook metrics', async () => {
    const metrics = await call('GET', '/metrics');
    expect(metrics.text).toMatch(
      /apiserver_admission_webhook_request_total\{name="deny\.example\.com",type="validate",operation="CREATE",code="403",rejected="true"\} [1-9]/,
    );
    expect(metrics.text).toMatch(
      /apiserver_admission_webhook_fail_open_count\{name="unreachable-ignore\.example\.com",type="validate"\} [1-9]/,
    );
    expect(metrics.text).toContain(
      'apiserver_admission_webhook_admission_duration_seconds_bucket{name="mutate.example.com"',
    );
  });
});
