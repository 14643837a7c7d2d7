// CRD conversion webhooks against an in-process control plane (real TLS, real SQLite) and a
// ConversionReview server written here: objects written in one version and read, listed (one
// review per list page) and watched in the other, labels and annotations the only metadata a
// webhook may change, v1beta1 reviews, and the bad inputs (garbage, a wrong uid, a wrong object
// count, a changed name, a failed result, a certificate for another name, an unreachable URL) as
// upstream's 500s (no reason, as a converter error that is not an API status) with its texts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, httpsCaller } from '../../support/https-call.js';
import { startWebhookServer, type WebhookServer } from '../../support/webhook-server.js';

let controlPlane: RunningControlPlane;
let call: Call;
let server: WebhookServer;
let wrongName: WebhookServer;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-conversion-'));

type Json = Record<string, unknown>;
type Request = { uid: string; desiredAPIVersion: string; objects: Json[] };

/** v1 keeps `spec.hostPort: "host:port"`, v2 splits it into `spec.host` and `spec.port`. */
function convertObject(object: Json, desired: string): Json {
  const spec = (object.spec ?? {}) as Json;
  const meta = object.metadata as Json;
  const labels = { ...((meta.labels as Json) ?? {}), 'converted-to': desired.split('/')[1]! };
  // A change beyond labels and annotations is not taken.
  const metadata = { ...meta, labels, generateName: 'ignored-' };
  if (desired.endsWith('/v2')) {
    const [host, port] = String(spec.hostPort ?? ':').split(':');
    return { ...object, apiVersion: desired, metadata, spec: { host, port } };
  }
  return { ...object, apiVersion: desired, metadata, spec: { hostPort: `${spec.host}:${spec.port}` } };
}

function conversionResponse(review: { apiVersion: string; request: Json }, response: Json): Json {
  return {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid: review.request.uid, ...response },
  };
}

function converted(review: { apiVersion: string; request: Json }): Json {
  const request = review.request as Request;
  return conversionResponse(review, {
    result: { status: 'Success' },
    convertedObjects: request.objects.map((object) => convertObject(object, request.desiredAPIVersion)),
  });
}

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
  server = await startWebhookServer();
  wrongName = await startWebhookServer({ dnsNames: ['wrong.example'] });
  server.handlers.set('/convert', converted);
  wrongName.handlers.set('/convert', converted);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await wrongName?.close();
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const SPEC_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
};

/** A CRD `<plural>.<group>` storing v1 and serving v1 and v2, converted by `clientConfig`. */
async function conversionCrd(group: string, clientConfig: Json, reviewVersions = ['v1', 'v1beta1']) {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `endpoints.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'endpoints', kind: 'Endpoint' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SPEC_SCHEMA } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: SPEC_SCHEMA } },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig, conversionReviewVersions: reviewVersions },
      },
    },
  };
  expect((await call('POST', CRDS, crd)).status).toBe(201);
  await eventually(async () => {
    const status = (await call('GET', `/apis/${group}/v2/namespaces/default/endpoints`)).status;
    return status === 200 ? true : undefined;
  });
}

const path = (group: string, version: string, name = '') =>
  `/apis/${group}/${version}/namespaces/default/endpoints${name ? `/${name}` : ''}`;

const endpoint = (group: string, name: string, hostPort: string) => ({
  apiVersion: `${group}/v1`,
  kind: 'Endpoint',
  metadata: { name, labels: { app: 'conversion' } },
  spec: { hostPort },
});

describe('a conversion webhook by URL', () => {
  const group = 'converted.example.com';
  beforeAll(async () => {
    await conversionCrd(group, { url: server.url('/convert'), caBundle: server.caBundle });
  });

  it('serves an object written in v1 as v2 and stores one written in v2 as v1', async () => {
    expect((await call('POST', path(group, 'v1'), endpoint(group, 'one', 'localhost:8080'))).status).toBe(
      201,
    );
    const v2 = (await call('GET', path(group, 'v2', 'one'))).json();
    expect(v2.apiVersion).toBe(`${group}/v2`);
    expect(v2.spec).toEqual({ host: 'localhost', port: '8080' });
    const meta = v2.metadata as Json;
    expect(meta.labels).toEqual({ app: 'conversion', 'converted-to': 'v2' });
    expect(meta.generateName).toBeUndefined();
    const request = server.received.get('/convert')!.at(-1) as Request;
    expect(request.desiredAPIVersion).toBe(`${group}/v2`);
    expect(request.objects.map((object) => object.apiVersion)).toEqual([`${group}/v1`]);

    const created = await call('POST', path(group, 'v2'), {
      apiVersion: `${group}/v2`,
      kind: 'Endpoint',
      metadata: { name: 'two' },
      spec: { host: 'example.org', port: '443' },
    });
    expect(created.status).toBe(201);
    expect(created.json().apiVersion).toBe(`${group}/v2`);
    const v1 = (await call('GET', path(group, 'v1', 'two'))).json();
    expect(v1.spec).toEqual({ hostPort: 'example.org:443' });
    // Written in v2: stored through the webhook (v1), whose labels were kept.
    expect((v1.metadata as Json).labels).toEqual({ 'converted-to': 'v1' });
  });

  it('updates and deletes through the other version', async () => {
    await call('POST', path(group, 'v1'), endpoint(group, 'three', 'a:1'));
    const current = (await call('GET', path(group, 'v2', 'three'))).json();
    const updated = await call('PUT', path(group, 'v2', 'three'), {
      ...current,
      spec: { host: 'b', port: '2' },
    });
    expect(updated.status).toBe(200);
    expect((await call('GET', path(group, 'v1', 'three'))).json().spec).toEqual({ hostPort: 'b:2' });
    // The same object put again through the webhook is no change: no new resourceVersion.
    const again = (await call('GET', path(group, 'v2', 'three'))).json();
    const unchanged = await call('PUT', path(group, 'v2', 'three'), again);
    expect(unchanged.status).toBe(200);
    expect((unchanged.json().metadata as Json).resourceVersion).toBe(
      (again.metadata as Json).resourceVersion,
    );
    expect((await call('DELETE', path(group, 'v2', 'three'))).status).toBe(200);
    expect((await call('GET', path(group, 'v1', 'three'))).status).toBe(404);
  });

  it('converts a list page in one review', async () => {
    for (const name of ['l1', 'l2', 'l3'])
      await call('POST', path(group, 'v1'), endpoint(group, name, `${name}:1`));
    const before = server.received.get('/convert')!.length;
    const list = (await call('GET', `${path(group, 'v2')}?labelSelector=app%3Dconversion`)).json();
    const items = list.items as Json[];
    expect(items.map((item) => item.apiVersion)).toEqual(items.map(() => `${group}/v2`));
    expect(items.map((item) => (item.spec as Json).host)).toEqual(expect.arrayContaining(['l1', 'l2', 'l3']));
    // Other readers (the garbage collector's watches) convert too: the list's review is the one
    // that holds every item of the page.
    const names = (review: Request) => review.objects.map((object) => (object.metadata as Json).name);
    const reviews = server.received.get('/convert')!.slice(before) as Request[];
    expect(
      reviews.some((review) => ['l1', 'l2', 'l3', 'one'].every((name) => names(review).includes(name))),
    ).toBe(true);
    // A page of two: one review of both.
    const paged = server.received.get('/convert')!.length;
    const page = (await call('GET', `${path(group, 'v2')}?limit=2`)).json();
    const pageNames = (page.items as Json[]).map((item) => (item.metadata as Json).name);
    expect(pageNames).toHaveLength(2);
    const pageReviews = server.received.get('/convert')!.slice(paged) as Request[];
    expect(pageReviews.some((review) => JSON.stringify(names(review)) === JSON.stringify(pageNames))).toBe(
      true,
    );
  });

  it('watches v2 while objects are written in v1', async () => {
    const rv = ((await call('GET', path(group, 'v2'))).json().metadata as Json).resourceVersion;
    const watchPath = `${path(group, 'v2')}?watch=1&resourceVersion=${rv}&timeoutSeconds=2`;
    const [watch, otherWatch] = [call('GET', watchPath), call('GET', watchPath)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = server.received.get('/convert')!.length;
    await call('POST', path(group, 'v1'), endpoint(group, 'watched', 'w:9'));
    expect((await otherWatch).text).toContain('"host":"w"');
    // Both watchers (and any other watcher of v2) share one conversion of the event.
    const reviews = (server.received.get('/convert')!.slice(before) as Request[]).filter((review) =>
      review.objects.some((object) => (object.metadata as Json).name === 'watched'),
    );
    expect(reviews).toHaveLength(1);
    const events = (await watch).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: Json });
    const added = events.find((event) => (event.object.metadata as Json).name === 'watched');
    expect(added?.type).toBe('ADDED');
    expect(added?.object.apiVersion).toBe(`${group}/v2`);
    expect(added?.object.spec).toEqual({ host: 'w', port: '9' });
  });
});

describe('a conversion webhook with v1beta1 reviews', () => {
  const group = 'beta.example.com';
  it('sends a v1beta1 ConversionReview and takes its answer', async () => {
    server.handlers.set('/beta', (review) => {
      expect(review.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
      return converted(review);
    });
    await conversionCrd(group, { url: server.url('/beta'), caBundle: server.caBundle }, ['v1beta1']);
    await call('POST', path(group, 'v1'), endpoint(group, 'b', 'h:1'));
    expect((await call('GET', path(group, 'v2', 'b'))).json().spec).toEqual({ host: 'h', port: '1' });
  });
});

describe('a failing conversion webhook', () => {
  const group = 'failing.example.com';
  const subject = `conversion webhook for ${group}/v1, Kind=Endpoint`;
  let answer: (review: { apiVersion: string; request: Json }) => Json | string = converted;
  beforeAll(async () => {
    server.handlers.set('/failing', (review) => answer(review));
    await conversionCrd(group, { url: server.url('/failing'), caBundle: server.caBundle });
    expect((await call('POST', path(group, 'v1'), endpoint(group, 'x', 'h:1'))).status).toBe(201);
  });

  async function failure(): Promise<Json> {
    const response = await call('GET', path(group, 'v2', 'x'));
    expect(response.status).toBe(500);
    const status = response.json();
    // Not an API status upstream either: a 500 without a reason.
    expect(status.reason ?? '').toBe('');
    return status;
  }

  it('answers garbage', async () => {
    answer = () => 'not json';
    expect((await failure()).message).toMatch(
      new RegExp(`^${subject} failed: received invalid webhook response: `),
    );
  });

  it('answers with another uid', async () => {
    answer = (review) => ({
      ...converted(review),
      response: { ...(converted(review).response as Json), uid: 'other' },
    });
    expect((await failure()).message).toMatch(
      new RegExp(`${subject} failed: expected response.uid="[0-9a-f-]{36}", got "other"`),
    );
  });

  it('answers another kind of review', async () => {
    answer = (review) => ({ ...converted(review), kind: 'AdmissionReview' });
    expect((await failure()).message).toBe(
      `${subject} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=AdmissionReview`,
    );
  });

  it('answers with a failed result', async () => {
    answer = (review) =>
      conversionResponse(review, { result: { status: 'Failure', message: 'cannot convert x' } });
    expect((await failure()).message).toBe(`${subject} failed: cannot convert x`);
  });

  it('answers too few objects', async () => {
    answer = (review) => conversionResponse(review, { result: { status: 'Success' }, convertedObjects: [] });
    expect((await failure()).message).toBe(`${subject} returned 0 objects, expected 1`);
  });

  it('answers the wrong version, a renamed object or bad labels', async () => {
    answer = (review) => {
      const body = converted(review);
      const [object] = (body.response as { convertedObjects: Json[] }).convertedObjects;
      object!.apiVersion = `${group}/v1`;
      return body;
    };
    expect((await failure()).message).toBe(
      `${subject} returned invalid object at index 0: invalid groupVersion (expected ${group}/v2, received ${group}/v1)`,
    );
    answer = (review) => {
      const body = converted(review);
      const [object] = (body.response as { convertedObjects: Json[] }).convertedObjects;
      (object!.metadata as Json).name = 'renamed';
      return body;
    };
    expect((await failure()).message).toBe(
      `${subject} returned invalid object: must have the same name: x != renamed`,
    );
    answer = (review) => {
      const body = converted(review);
      const [object] = (body.response as { convertedObjects: Json[] }).convertedObjects;
      (object!.metadata as Json).labels = { 'bad key!': 'v' };
      return body;
    };
    expect((await failure()).message).toMatch(
      new RegExp(`^${subject} returned invalid metadata: metadata.labels: Invalid value: "bad key!"`),
    );
  });

  it('fails a list and a watch, and serves again once the webhook answers', async () => {
    answer = () => 'garbage';
    const list = await call('GET', path(group, 'v2'));
    expect(list.status).toBe(500);
    expect(list.json().message).toMatch(
      new RegExp(`^conversion webhook for ${group}/v1, Kind=EndpointList failed: `),
    );
    answer = (review) => {
      const body = converted(review);
      for (const object of (body.response as { convertedObjects: Json[] }).convertedObjects)
        object.apiVersion = `${group}/v1`;
      return body;
    };
    expect((await call('GET', path(group, 'v2'))).json().message).toBe(
      `conversion webhook for ${group}/v1, Kind=EndpointList returned invalid converted object at index 1: invalid groupVersion (expected ${group}/v2, received ${group}/v1)`,
    );
    answer = () => 'garbage';
    const watch = await call('GET', `${path(group, 'v2')}?watch=1&timeoutSeconds=2`);
    // The initial state cannot be converted: the watch is refused as the list is.
    expect(watch.status).toBe(500);
    answer = converted;
    expect((await call('GET', path(group, 'v2', 'x'))).status).toBe(200);
    // Reads in the storage version need no webhook at all.
    answer = () => 'garbage';
    expect((await call('GET', path(group, 'v1', 'x'))).status).toBe(200);
    answer = converted;
  });
});

describe('an unreachable or untrusted conversion webhook', () => {
  it('refuses a certificate for another name', async () => {
    const group = 'untrusted.example.com';
    await conversionCrd(group, { url: wrongName.url('/convert'), caBundle: wrongName.caBundle });
    await call('POST', path(group, 'v1'), endpoint(group, 'u', 'h:1'));
    const response = await call('GET', path(group, 'v2', 'u'));
    expect(response.status).toBe(500);
    expect(response.json().message).toContain(
      `conversion webhook for ${group}/v1, Kind=Endpoint failed: Post "${wrongName.url('/convert')}?timeout=30s": `,
    );
  });

  it('fails fast on a closed port and on a Service with no endpoints', async () => {
    const group = 'closed.example.com';
    await conversionCrd(group, { url: 'https://127.0.0.1:1/convert', caBundle: server.caBundle });
    await call('POST', path(group, 'v1'), endpoint(group, 'c', 'h:1'));
    const response = await call('GET', path(group, 'v2', 'c'));
    expect(response.status).toBe(500);
    expect(response.json().message).toContain('ECONNREFUSED');

    const svcGroup = 'svc.example.com';
    await conversionCrd(svcGroup, {
      service: { namespace: 'default', name: 'no-such-converter', path: '/convert', port: 443 },
      caBundle: server.caBundle,
    });
    await call('POST', path(svcGroup, 'v1'), endpoint(svcGroup, 's', 'h:1'));
    const viaService = await call('GET', path(svcGroup, 'v2', 's'));
    expect(viaService.status).toBe(500);
    expect(viaService.json().message).toMatch(
      new RegExp(
        `^conversion webhook for ${svcGroup}/v1, Kind=Endpoint failed: Post "https://no-such-converter.default.svc/convert\\?timeout=30s": services \\"no-such-converter\\" not found`,
      ),
    );
  });
});

describe('conversion webhook metrics', () => {
  /** The value of the series `name` whose labels include `labels`, or undefined. */
  function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
    for (const line of metrics.split('\n')) {
      if (!line.startsWith(`${name}{`)) continue;
      const text = line.slice(name.length, line.lastIndexOf('}') + 1);
      if (Object.entries(labels).every(([key, value]) => text.includes(`${key}="${value}"`)))
        return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return undefined;
  }

  it('counts calls by outcome and failure type, and times each CRD between versions, as kube-apiserver does', async () => {
    const response = await call('GET', '/metrics');
    expect(response.status).toBe(200);
    const metrics = response.text;
    const requests = (result: string, failure_type: string) =>
      sample(metrics, 'apiserver_conversion_webhook_request_total', { result, failure_type }) ?? 0;
    expect(requests('success', '')).toBeGreaterThan(0);
    // The failing webhook above: a reply that is no review, a short one, a wrong object, refused calls.
    expect(requests('failure', 'conversion_webhook_malformed_response_failure')).toBeGreaterThan(0);
    expect(requests('failure', 'conversion_webhook_partial_response_failure')).toBeGreaterThan(0);
    expect(requests('failure', 'conversion_webhook_invalid_converted_object_failure')).toBeGreaterThan(0);
    expect(requests('failure', 'conversion_webhook_call_failure')).toBeGreaterThan(0);
    expect(
      sample(metrics, 'apiserver_conversion_webhook_duration_seconds_count', { result: 'success' }),
    ).toBe(requests('success', ''));

    const crd = (crd_name: string, from_version: string, to_version: string, succeeded: string) =>
      sample(metrics, 'apiserver_crd_conversion_webhook_duration_seconds_count', {
        crd_name,
        from_version,
        to_version,
        succeeded,
      }) ?? 0;
    // Read as v2 from storage (v1), written as v2 into storage.
    expect(crd('endpoints.converted.example.com', 'v1', 'v2', 'true')).toBeGreaterThan(0);
    expect(crd('endpoints.converted.example.com', 'v2', 'v1', 'true')).toBeGreaterThan(0);
    expect(crd('endpoints.failing.example.com', 'v1', 'v2', 'false')).toBeGreaterThan(0);
    expect(metrics).toContain('apiserver_crd_conversion_webhook_duration_seconds_bucket{');
    expect(metrics).toMatch(/apiserver_crd_conversion_webhook_duration_seconds_bucket\{[^}]*le="16\.384"\}/);
  });
});
