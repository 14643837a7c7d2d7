// API machinery edge cases over real HTTPS against an in-process control plane: status codes,
// Status reasons and messages, resourceVersion semantics, finalizers, graceful deletion,
// dry runs, renderings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { type Call, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-machinery-'));

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0, historyRevisions: 30 });
  call = httpsCaller(() => controlPlane.port, pki);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data: { a: '1' },
});

describe('API machinery', () => {
  it('answers Status objects with Kubernetes reasons, codes and details', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', cm('dup'));
    expect(created.status).toBe(201);
    const again = await call('POST', '/api/v1/namespaces/default/configmaps', cm('dup'));
    expect(again.status).toBe(409);
    expect(again.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "dup" already exists',
      reason: 'AlreadyExists',
      details: { name: 'dup', kind: 'configmaps' },
      code: 409,
    });
    const missing = await call('GET', '/apis/apps/v1/namespaces/default/deployments/nope');
    expect(missing.json()).toMatchObject({
      reason: 'NotFound',
      code: 404,
      message: 'deployments.apps "nope" not found',
    });
    const unknownPath = await call('GET', '/apis/nothing.example.com/v1/things');
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.json()).toMatchObject({ message: 'the server could not find the requested resource' });
  });

  it('rejects malformed, oversized, mistyped and misplaced bodies with 4xx', async () => {
    const malformed = await call('POST', '/api/v1/namespaces/default/configmaps', '{"metadata": ');
    expect(malformed.status).toBe(400);
    expect(malformed.json()).toMatchObject({ reason: 'BadRequest' });
    const huge = await call('POST', '/api/v1/namespaces/default/configmaps', cm('huge', {}), {});
    expect(huge.status).toBe(201);
    const oversized = await call('POST', '/api/v1/namespaces/default/configmaps', {
      ...cm('too-big'),
      data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) },
    });
    expect(oversized.status).toBe(413);
    expect(oversized.json()).toMatchObject({
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 3145728',
    });
    const wrongKind = await call('POST', '/api/v1/namespaces/default/configmaps', {
      ...cm('x'),
      kind: 'Secret',
    });
    expect(wrongKind.status).toBe(400);
    const wrongNamespace = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm('x', { namespace: 'other' }),
    );
    expect(wrongNamespace.status).toBe(400);
    expect(wrongNamespace.json()).toMatchObject({
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
    const unsupported = await call('POST', '/api/v1/namespaces/default/configmaps', 'a: b', {
      'content-type': 'text/plain',
    });
    expect(unsupported.status).toBe(415);
    const noNamespace = await call('POST', '/api/v1/namespaces/ghost/configmaps', cm('x'));
    expect(noNamespace.json()).toMatchObject({ code: 404, message: 'namespaces "ghost" not found' });
  });

  it('answers 406 to a client that accepts only protobuf, so it falls back to JSON', async () => {
    const protobufOnly = await call('GET', '/api/v1/namespaces/default/configmaps/dup', undefined, {
      accept: 'application/vnd.kubernetes.protobuf',
    });
    expect(protobufOnly.status).toBe(406);
    const either = await call('GET', '/api/v1/namespaces/default/configmaps/dup', undefined, {
      accept: 'application/vnd.kubernetes.protobuf, application/json',
    });
    expect(either.status).toBe(200);
    expect(either.headers['content-type']).toBe('application/json');
  });

  it('reads at an exact older resourceVersion and answers 410 once it is compacted', async () => {
    const v1 = (await call('POST', '/api/v1/namespaces/default/configmaps', cm('versions'))).json() as {
      metadata: { resourceVersion: string };
    };
    await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/versions',
      { data: { a: '2' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    const exact = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${v1.metadata.resourceVersion}&resourceVersionMatch=Exact&fieldSelector=metadata.name=versions`,
    );
    expect((exact.json() as { items: { data: { a: string } }[] }).items[0]!.data.a).toBe('1');
    const notOlder = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${v1.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name=versions`,
    );
    expect((notOlder.json() as { items: { data: { a: string } }[] }).items[0]!.data.a).toBe('2');
    const page = (await call('GET', '/api/v1/namespaces/default/configmaps?limit=1')).json() as {
      metadata: { continue: string };
    };
    for (let i = 0; i < 40; i++)
      await call('POST', '/api/v1/namespaces/default/configmaps', cm(`churn-${i}`));
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the store compacts every second
    const expired = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?limit=1&continue=${page.metadata.continue}`,
    );
    expect(expired.status).toBe(410);
    expect(expired.json()).toMatchObject({ reason: 'Expired' });
    expect(expired.json().message).toMatch(/^The provided continue parameter is too old/);
    const oldExact = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${v1.metadata.resourceVersion}&resourceVersionMatch=Exact`,
    );
    expect(oldExact.status).toBe(410);
    expect(oldExact.json().message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    const watch = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${v1.metadata.resourceVersion}`,
    );
    expect(watch.status).toBe(200);
    const event = JSON.parse(watch.text.trim()) as { type: string; object: { code: number; reason: string } };
    expect(event).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    const bad = await call('GET', '/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact');
    expect(bad.status).toBe(422);
  });

  it('only marks objects with finalizers, and deletes them when the last one goes', async () => {
    await call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm('held', { finalizers: ['example.com/hold'] }),
    );
    const marked = await call('DELETE', '/api/v1/namespaces/default/configmaps/held');
    expect(marked.status).toBe(200);
    const object = marked.json() as { metadata: { deletionTimestamp?: string; finalizers: string[] } };
    expect(object.metadata.deletionTimestamp).toBeDefined();
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/held')).status).toBe(200);
    const released = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/held',
      { metadata: { finalizers: null } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(released.status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/held')).status).toBe(404);
  });

  it('deletes scheduled pods gracefully and the rest at once', async () => {
    const pod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
    });
    await call('POST', '/api/v1/namespaces/default/pods', pod('placed', 'node-1'));
    await call('POST', '/api/v1/namespaces/default/pods', pod('unplaced'));
    const graceful = (await call('DELETE', '/api/v1/namespaces/default/pods/placed')).json() as {
      metadata: { deletionGracePeriodSeconds: number; deletionTimestamp: string };
    };
    expect(graceful.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await call('GET', '/api/v1/namespaces/default/pods/placed')).status).toBe(200);
    // The kubelet's final delete: grace period 0.
    await call('DELETE', '/api/v1/namespaces/default/pods/placed', { gracePeriodSeconds: 0 });
    expect((await call('GET', '/api/v1/namespaces/default/pods/placed')).status).toBe(404);
    await call('DELETE', '/api/v1/namespaces/default/pods/unplaced');
    expect((await call('GET', '/api/v1/namespaces/default/pods/unplaced')).status).toBe(404);
  });

  it('honours dryRun, generateName, preconditions and deletecollection', async () => {
    const dry = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', cm('dry'));
    expect(dry.status).toBe(201);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
    const generated = (
      await call('POST', '/api/v1/namespaces/default/configmaps', {
        ...cm(''),
        metadata: { generateName: 'gen-', labels: { batch: 'x' } },
      })
    ).json() as { metadata: { name: string; uid: string } };
    expect(generated.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const wrongUid = await call(
      'DELETE',
      `/api/v1/namespaces/default/configmaps/${generated.metadata.name}`,
      {
        preconditions: { uid: 'not-the-uid' },
      },
    );
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json().message).toContain('Precondition failed: UID in precondition: not-the-uid');
    await call('POST', '/api/v1/namespaces/default/configmaps', cm('batch-2', { labels: { batch: 'x' } }));
    const removed = await call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dx');
    expect((removed.json() as { items: unknown[] }).items).toHaveLength(2);
    const left = (
      await call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dx')
    ).json() as {
      items: unknown[];
    };
    expect(left.items).toEqual([]);
  });

  it('renders partial object metadata and rejects unsupported field selectors', async () => {
    const partial = await call('GET', '/api/v1/namespaces/default/configmaps?limit=2', undefined, {
      accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    const list = partial.json() as { kind: string; items: { kind: string; metadata: { name: string } }[] };
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items[0]).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(list.items[0]).not.toHaveProperty('data');
    const badField = await call(
      'GET',
      '/api/v1/namespaces/default/configmaps?fieldSelector=spec.nodeName%3Dx',
    );
    expect(badField.status).toBe(400);
    expect(badField.json().message).toBe('field label not supported: spec.nodeName');
    const podField = await call('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1');
    expect(podField.status).toBe(200);
  });

  it('serves health checks and metrics; anonymous users get health but not the API', async () => {
    const verbose = await call('GET', '/readyz?verbose', undefined, {}, true);
    expect(verbose.status).toBe(200);
    expect(verbose.text).toContain('readyz check passed');
    const anonymous = await call('GET', '/api/v1/namespaces', undefined, {}, true);
    expect(anonymous.status).toBe(403);
    expect(anonymous.json().message).toBe(
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    const metrics = await call('GET', '/metrics');
    expect(metrics.text).toMatch(
      /apiserver_request_total\{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="201"\} \d+/,
    );
  });
});
