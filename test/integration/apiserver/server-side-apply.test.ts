// Server-side apply over real HTTPS against an in-process control plane: PATCH with
// application/apply-patch+yaml creates and changes objects, records managedFields, refuses
// conflicts with 409 and bad bodies and options with upstream's 400/422.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, type CallResponse, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-ssa-'));

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0, historyRevisions: 30 });
  call = httpsCaller(() => controlPlane.port, pki);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const CMS = '/api/v1/namespaces/default/configmaps';

function apply(path: string, body: string, query: string) {
  return call('PATCH', `${path}?${query}`, body, APPLY);
}

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  time: string;
  subresource?: string;
}

function managed(response: CallResponse): Entry[] {
  return ((response.json().metadata as { managedFields?: Entry[] }).managedFields ?? []) as Entry[];
}

describe('server-side apply', () => {
  it('creates the object on apply and records the applier', async () => {
    const created = await apply(
      `${CMS}/one`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  a: "1"\n  b: "2"\n',
      'fieldManager=alice',
    );
    expect(created.status).toBe(201);
    expect(created.json().data).toEqual({ a: '1', b: '2' });
    const [entry] = managed(created);
    expect(entry).toMatchObject({
      manager: 'alice',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } },
    });
    expect(entry?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('removes a field the applier owned alone and no longer sets', async () => {
    const changed = await apply(
      `${CMS}/one`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  a: "10"\n',
      'fieldManager=alice',
    );
    expect(changed.status).toBe(200);
    expect(changed.json().data).toEqual({ a: '10' });
    expect(managed(changed)[0]?.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
  });

  it('refuses a conflicting apply with 409 and its causes, and takes the field over with force', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  a: "20"\n';
    const refused = await apply(`${CMS}/one`, body, 'fieldManager=bob');
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }],
      },
    });
    const forced = await apply(`${CMS}/one`, body, 'fieldManager=bob&force=true');
    expect(forced.status).toBe(200);
    expect(forced.json().data).toEqual({ a: '20' });
    expect(managed(forced).map((e) => e.manager)).toEqual(['bob']);
  });

  it('changes nothing on a dry run', async () => {
    const dry = await apply(
      `${CMS}/one`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  z: "9"\n',
      'fieldManager=carol&dryRun=All',
    );
    expect(dry.status).toBe(200);
    expect(dry.json().data).toEqual({ a: '20', z: '9' });
    const stored = await call('GET', `${CMS}/one`);
    expect(stored.json().data).toEqual({ a: '20' });
    const dryCreate = await apply(
      `${CMS}/ghost`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ghost\n',
      'fieldManager=carol&dryRun=All',
    );
    expect(dryCreate.status).toBe(201);
    expect((await call('GET', `${CMS}/ghost`)).status).toBe(404);
  });

  it('keys container ports by the defaulted protocol and merges two appliers of one list map', async () => {
    const deployment = (containers: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n${containers}`;
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    const first = await apply(
      path,
      deployment('      - name: a\n        image: a:1\n        ports:\n        - containerPort: 80\n'),
      'fieldManager=alice',
    );
    expect(first.status).toBe(201);
    const spec = managed(first)[0]?.fieldsV1['f:spec'] as Record<string, Record<string, unknown>>;
    const containers = (spec['f:template'] as Record<string, Record<string, Record<string, unknown>>>)[
      'f:spec'
    ]?.['f:containers'] as Record<string, Record<string, Record<string, unknown>>>;
    expect(containers['k:{"name":"a"}']?.['f:ports']).toHaveProperty([
      'k:{"containerPort":80,"protocol":"TCP"}',
    ]);
    const second = await apply(path, deployment('      - name: b\n        image: b:1\n'), 'fieldManager=bob');
    expect(second.status).toBe(200);
    const names = (second.json().spec as { template: { spec: { containers: { name: string }[] } } }).template
      .spec.containers;
    expect(names.map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('applies status on the status subresource and ignores it on the main resource', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    const status = await apply(
      `${path}/status`,
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nstatus:\n  observedGeneration: 7\n',
      'fieldManager=controller',
    );
    expect(status.status).toBe(200);
    expect((status.json().status as { observedGeneration?: number }).observedGeneration).toBe(7);
    expect(managed(status).find((e) => e.manager === 'controller')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {} } },
    });
    const mainStatus = await apply(
      path,
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nstatus:\n  observedGeneration: 9\n',
      'fieldManager=dave',
    );
    expect(mainStatus.status).toBe(200);
    expect((mainStatus.json().status as { observedGeneration?: number }).observedGeneration).toBe(7);
  });

  it('records managedFields on create, update and patch, per manager, and resets them on [{}]', async () => {
    const created = await call('POST', `${CMS}?fieldManager=writer`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'tracked' },
      data: { a: '1' },
    });
    expect(created.status).toBe(201);
    expect(managed(created)).toEqual([
      expect.objectContaining({
        manager: 'writer',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
      }),
    ]);
    const patched = await call('PATCH', `${CMS}/tracked`, '{"data":{"b":"2"}}', {
      'content-type': 'application/merge-patch+json',
      'user-agent': 'patcher/v1.0 (linux/amd64)',
    });
    // Sorted by time, then manager: both are of the same second or the writer's is older.
    expect(new Map(managed(patched).map((e) => [e.manager, e.fieldsV1]))).toEqual(
      new Map([
        ['writer', { 'f:data': { '.': {}, 'f:a': {} } }],
        ['patcher', { 'f:data': { 'f:b': {} } }],
      ]),
    );
    // An apply of a field another manager set by update takes it without conflict only with force.
    const taken = await apply(
      `${CMS}/tracked`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tracked\ndata:\n  b: "3"\n',
      'fieldManager=applier',
    );
    expect(taken.status).toBe(409);
    expect(taken.json().message).toBe(
      'Apply failed with 1 conflict: conflict with "patcher" using v1: .data.b',
    );
    const object = patched.json() as { metadata: Record<string, unknown> };
    const reset = await call('PUT', `${CMS}/tracked?fieldManager=resetter`, {
      ...object,
      metadata: { ...object.metadata, managedFields: [{}] },
    });
    expect(reset.status).toBe(200);
    expect(managed(reset)).toEqual([]);
    // Untracked now: an update leaves it untracked, as upstream's skipNonAppliedManager does.
    const again = await call('PUT', `${CMS}/tracked?fieldManager=resetter`, {
      ...reset.json(),
      data: { c: '1' },
    });
    expect(managed(again)).toEqual([]);
  });

  it('records a status write under the status subresource', async () => {
    const pod = await call('POST', '/api/v1/namespaces/default/pods?fieldManager=creator', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect(pod.status).toBe(201);
    const body = pod.json() as { status?: Record<string, unknown> };
    const written = await call('PUT', '/api/v1/namespaces/default/pods/p/status?fieldManager=kubelet', {
      ...body,
      status: { ...body.status, message: 'hello' },
    });
    expect(written.status).toBe(200);
    expect(managed(written).find((e) => e.manager === 'kubelet')).toMatchObject({
      operation: 'Update',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:message': {} } },
    });
    expect(managed(written).find((e) => e.manager === 'creator')?.fieldsV1).not.toHaveProperty('f:status');
  });

  it('answers bad options and bodies with upstream errors, never 5xx', async () => {
    const ok = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n';
    const noManager = await apply(`${CMS}/one`, ok, '');
    expect(noManager.status).toBe(422);
    expect(noManager.json().message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    const forceMerge = await call('PATCH', `${CMS}/one?force=true`, '{}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(forceMerge.status).toBe(422);
    expect(forceMerge.json().message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    const list = await apply(`${CMS}/one`, '- a\n- b\n', 'fieldManager=x');
    expect(list.status).toBe(400);
    expect(list.json().message).toBe(
      'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    const wrongKind = await apply(
      `${CMS}/one`,
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: one\n',
      'fieldManager=x',
    );
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json().message).toBe('invalid object type: /v1, Kind=Secret');
    const duplicate = await apply(
      '/apis/apps/v1/namespaces/default/deployments/web',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n      - name: a\n',
      'fieldManager=x',
    );
    expect(duplicate.status).toBe(400);
    expect(duplicate.json().message).toContain('duplicate entries for key [name="a"]');
    const wrongName = await apply(
      `${CMS}/one`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n',
      'fieldManager=x',
    );
    expect(wrongName.status).toBe(400);
    const notYaml = await apply(`${CMS}/one`, 'data: [unclosed\n', 'fieldManager=x');
    expect(notYaml.status).toBe(400);
    expect(notYaml.json().message).toMatch(/^error decoding YAML: /);
    const unknownType = await call('PATCH', `${CMS}/one`, '{}', { 'content-type': 'text/plain' });
    expect(unknownType.status).toBe(415);
    expect(unknownType.json().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('refuses a fieldManager over 128 bytes or with unprintable characters on apply, patch, create and update', async () => {
    const long = 'm'.repeat(129);
    const ok = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: managed-name\ndata:\n  a: b\n';
    const tooLong = await apply(`${CMS}/managed-name`, ok, `fieldManager=${long}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.json().message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    expect(tooLong.json().details).toMatchObject({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueTooLong', field: 'fieldManager' }],
    });
    const atLimit = await apply(`${CMS}/managed-name`, ok, `fieldManager=${'m'.repeat(128)}`);
    expect(atLimit.status).toBe(201);
    expect(managed(atLimit)[0]?.manager).toBe('m'.repeat(128));
    const body = JSON.stringify({ metadata: { name: 'managed-name-2' } });
    const create = await call('POST', `${CMS}?fieldManager=${long}`, body);
    expect(create.status).toBe(422);
    expect(create.json().message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    const update = await call('PUT', `${CMS}/managed-name?fieldManager=${long}`, body);
    expect(update.status).toBe(422);
    expect(update.json().message).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    const merge = await call('PATCH', `${CMS}/managed-name?fieldManager=a%01b`, '{}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(merge.status).toBe(422);
    expect(merge.json().message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\x01b": invalid character U+0001 (at position 1)',
    );
  });

  it('applies and updates replicas through the scale subresource, moving ownership as upstream', async () => {
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const deployment =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: scaled\nspec:\n  replicas: 2\n' +
      '  selector:\n    matchLabels: {app: scaled}\n  template:\n    metadata:\n      labels: {app: scaled}\n' +
      '    spec:\n      containers:\n      - name: c\n        image: nginx\n';
    expect((await apply(`${deployments}/scaled`, deployment, 'fieldManager=alice')).status).toBe(201);
    const scale =
      'apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: scaled\nspec:\n  replicas: 5\n';
    const conflict = await apply(`${deployments}/scaled/scale`, scale, 'fieldManager=hpa');
    expect(conflict.status).toBe(409);
    expect(conflict.json().message).toBe(
      'Apply failed with 1 conflict: conflict with "alice": .spec.replicas',
    );
    const forced = await apply(`${deployments}/scaled/scale`, scale, 'fieldManager=hpa&force=true');
    expect(forced.status).toBe(200);
    expect(forced.json()).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
    const parent = await call('GET', `${deployments}/scaled`);
    expect((parent.json().spec as { replicas: number }).replicas).toBe(5);
    const entries = managed(parent);
    expect(entries.find((e) => e.manager === 'hpa')).toMatchObject({
      operation: 'Apply',
      apiVersion: 'apps/v1',
      subresource: 'scale',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    const alice = entries.find((e) => e.manager === 'alice');
    const aliceSpec = alice?.fieldsV1['f:spec'] as Record<string, unknown> | undefined;
    expect(aliceSpec?.['f:replicas']).toBeUndefined();
    expect(aliceSpec?.['f:selector']).toBeDefined();

    const scaled = await call(
      'PATCH',
      `${deployments}/scaled/scale?fieldManager=scaler`,
      '{"spec":{"replicas":3}}',
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(scaled.status).toBe(200);
    const after = managed(await call('GET', `${deployments}/scaled`));
    expect(after.find((e) => e.manager === 'scaler')).toMatchObject({
      operation: 'Update',
      apiVersion: 'apps/v1',
      subresource: 'scale',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    expect(after.find((e) => e.manager === 'hpa')).toBeUndefined();

    const wrongKind = await apply(`${deployments}/scaled/scale`, deployment, 'fieldManager=hpa');
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json().message).toBe('invalid object type: apps/v1, Kind=Deployment');
    const missing = await apply(
      `${deployments}/absent/scale`,
      scale.replace('scaled', 'absent'),
      'fieldManager=hpa',
    );
    expect(missing.status).toBe(404);
  });

  it('fails an apply over an entry at a version the CRD no longer has, as upstream, until an update drops the entries', async () => {
    const version = (name: string, storage: boolean) => ({
      name,
      served: true,
      storage,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
        },
      },
    });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'tools.ssa.example.com' },
      spec: {
        group: 'ssa.example.com',
        scope: 'Namespaced',
        names: { plural: 'tools', kind: 'Tool' },
        versions: [version('v1', false), version('v2', true)],
      },
    };
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const tools = (v: string) => `/apis/ssa.example.com/${v}/namespaces/default/tools`;
    expect((await call('POST', crds, crd)).status).toBe(201);
    await eventually(async () => ((await call('GET', tools('v1'))).status === 200 ? true : undefined));
    const tool = (v: string, size: number) =>
      `apiVersion: ssa.example.com/${v}\nkind: Tool\nmetadata:\n  name: t\nspec:\n  size: ${size}\n`;
    expect((await apply(`${tools('v1')}/t`, tool('v1', 1), 'fieldManager=one')).status).toBe(201);
    const shared = await apply(`${tools('v2')}/t`, tool('v2', 1), 'fieldManager=two');
    expect(
      managed(shared)
        .map((e) => `${e.manager}@${e.apiVersion}`)
        .sort(),
    ).toEqual(['one@ssa.example.com/v1', 'two@ssa.example.com/v2']);

    // v1 goes from the CRD (it was never the storage version).
    const current = (await call('GET', `${crds}/tools.ssa.example.com`)).json() as typeof crd;
    const onlyV2 = { ...current, spec: { ...current.spec, versions: [version('v2', true)] } };
    expect((await call('PUT', `${crds}/tools.ssa.example.com`, onlyV2)).status).toBe(200);
    await eventually(async () => ((await call('GET', tools('v1'))).status === 404 ? true : undefined));

    const refused = await apply(`${tools('v2')}/t`, tool('v2', 2), 'fieldManager=two');
    expect(refused.status).toBe(500);
    expect(refused.json()).toMatchObject({
      reason: '',
      message: 'request to convert CR to an invalid group/version: ssa.example.com/v1',
    });
    // An update cannot compute managedFields either: it drops them (UpdateNoErrors), and applies
    // work again (the untracked fields now belong to "before-first-apply", hence the force).
    const patched = await call('PATCH', `${tools('v2')}/t?fieldManager=editor`, '{"spec":{"size":3}}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(managed(patched)).toEqual([]);
    const again = await apply(`${tools('v2')}/t`, tool('v2', 2), 'fieldManager=two&force=true');
    expect(again.status).toBe(200);
    const versions = managed(again).map((e) => `${e.manager}@${e.apiVersion}`);
    expect(versions).toContain('two@ssa.example.com/v2');
    expect(versions.filter((v) => v.endsWith('/v1'))).toEqual([]);
  });
});
