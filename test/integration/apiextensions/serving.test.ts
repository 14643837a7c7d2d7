// CustomResourceDefinitions over real HTTPS against an in-process control plane: CRD validation
// texts, the status controllers (names, Established, conflicts, API approval), serving of every
// served version, subresources, selectors, printer columns, discovery and deletion.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-crd-serving-'));

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const WIDGET_SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        color: { type: 'string' },
        replicas: { type: 'integer' },
        selector: { type: 'string' },
      },
    },
    status: {
      type: 'object',
      properties: { replicas: { type: 'integer' }, phase: { type: 'string' } },
    },
  },
};

function widgetCrd(overrides: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: WIDGET_SCHEMA },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.spec.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Color', type: 'string', jsonPath: '.spec.color' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
          ],
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          deprecated: true,
          schema: { openAPIV3Schema: WIDGET_SCHEMA },
        },
      ],
      ...overrides,
    },
  };
}

async function established(name: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const crd = (await call('GET', `${CRDS}/${name}`)).json();
    const conditions = (crd.status as { conditions?: { type: string; status: string }[] })?.conditions ?? [];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True') ? crd : undefined;
  });
}

const widget = (name: string, spec: Record<string, unknown> = {}, apiVersion = 'example.com/v1') => ({
  apiVersion,
  kind: 'Widget',
  metadata: { name, labels: { app: 'shop' } },
  spec: { color: 'red', replicas: 1, ...spec },
});

const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

describe('CustomResourceDefinition validation', () => {
  it('refuses a CRD with upstream texts', async () => {
    const bad = widgetCrd({
      group: 'example',
      names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget' },
    });
    (bad.metadata as { name: string }).name = 'widgets.other.com';
    const response = await call('POST', CRDS, bad);
    expect(response.status).toBe(422);
    const message = String(response.json().message);
    expect(message).toContain(
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.other.com" is invalid: [',
    );
    expect(message).toContain(
      'metadata.name: Invalid value: "widgets.other.com": must be spec.names.plural+"."+spec.group',
    );
    expect(message).toContain(
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
    );
    expect(message).toContain(
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    );
  });

  it('needs exactly one storage version and printer columns with known types', async () => {
    const crd = widgetCrd();
    const versions = (crd.spec as { versions: Record<string, unknown>[] }).versions;
    versions[1]!.storage = true;
    (versions[0]!.additionalPrinterColumns as Record<string, unknown>[]).push({
      name: 'X',
      type: 'text',
      jsonPath: 'spec',
    });
    const response = await call('POST', CRDS, crd);
    expect(response.status).toBe(422);
    const message = String(response.json().message);
    expect(message).toContain('must have exactly one version marked as storage version');
    expect(message).toContain(
      'spec.versions[0].additionalPrinterColumns[2].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    );
    expect(message).toContain(
      'spec.versions[0].additionalPrinterColumns[2].JSONPath: Invalid value: "spec": must be a simple json path starting with .',
    );
  });

  it('asks protected groups for API approval', async () => {
    const crd = widgetCrd({ group: 'things.k8s.io' });
    (crd.metadata as { name: string }).name = 'widgets.things.k8s.io';
    const response = await call('POST', CRDS, crd);
    expect(response.status).toBe(422);
    expect(String(response.json().message)).toContain(
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    );
    (crd.metadata as { annotations?: Record<string, string> }).annotations = {
      'api-approved.kubernetes.io': 'unapproved, testing only',
    };
    expect((await call('POST', CRDS, crd)).status).toBe(201);
    const body = await established('widgets.things.k8s.io');
    const conditions = (body.status as { conditions: Record<string, string>[] }).conditions;
    expect(conditions.find((c) => c.type === 'KubernetesAPIApprovalPolicyConformant')).toMatchObject({
      status: 'False',
      reason: 'UnapprovedAnnotation',
      message: 'not approved: "unapproved, testing only"',
    });
  });
});

describe('serving a CustomResourceDefinition', () => {
  let crd: Record<string, unknown>;
  beforeAll(async () => {
    const created = await call('POST', CRDS, widgetCrd());
    expect(created.status).toBe(201);
    crd = await established('widgets.example.com');
  });

  it('accepts the names and records the storage version', () => {
    const status = crd.status as Record<string, unknown>;
    expect(status.acceptedNames).toEqual({
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      kind: 'Widget',
      listKind: 'WidgetList',
      categories: ['all'],
    });
    expect(status.storedVersions).toEqual(['v1']);
    const conditions = status.conditions as {
      type: string;
      status: string;
      reason: string;
      message: string;
    }[];
    expect(
      conditions.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
    ).toEqual([
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ]);
    expect((crd.spec as { conversion: unknown }).conversion).toEqual({ strategy: 'None' });
  });

  it('creates, reads, lists and converts between versions', async () => {
    const created = await call('POST', WIDGETS, widget('one'));
    expect(created.status).toBe(201);
    const body = created.json();
    expect(body.apiVersion).toBe('example.com/v1');
    expect((body.metadata as { generation: number }).generation).toBe(1);
    const beta = await call('GET', '/apis/example.com/v1beta1/namespaces/default/widgets/one');
    expect(beta.status).toBe(200);
    expect(beta.headers.warning).toBe('299 - "example.com/v1beta1 Widget is deprecated"');
    expect(beta.json().apiVersion).toBe('example.com/v1beta1');
    const viaBeta = await call(
      'POST',
      '/apis/example.com/v1beta1/namespaces/default/widgets',
      widget('two', {}, 'example.com/v1beta1'),
    );
    expect(viaBeta.status).toBe(201);
    const list = (await call('GET', WIDGETS)).json();
    expect(list.kind).toBe('WidgetList');
    const page = (await call('GET', `${WIDGETS}?limit=1`)).json() as {
      metadata: { continue: string };
      items: { metadata: { name: string } }[];
    };
    expect(page.items.map((item) => item.metadata.name)).toEqual(['one']);
    const rest = (
      await call('GET', `${WIDGETS}?limit=1&continue=${encodeURIComponent(page.metadata.continue)}`)
    ).json();
    expect((rest.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual([
      'two',
    ]);
    expect((list.items as { apiVersion: string }[]).map((item) => item.apiVersion)).toEqual([
      'example.com/v1',
      'example.com/v1',
    ]);
  });

  it('answers 404 for versions that are not served and namespaces that do not exist', async () => {
    const missingVersion = await call('GET', '/apis/example.com/v2/namespaces/default/widgets');
    expect(missingVersion.status).toBe(404);
    expect(missingVersion.json().message).toBe('the server could not find the requested resource');
    const missingNamespace = await call(
      'POST',
      '/apis/example.com/v1/namespaces/nowhere/widgets',
      widget('x'),
    );
    expect(missingNamespace.status).toBe(404);
    expect(missingNamespace.json().message).toBe('namespaces "nowhere" not found');
  });

  it('keeps status out of main writes and spec out of status writes; generation follows spec', async () => {
    await call('POST', WIDGETS, widget('gen'));
    const statusWrite = await call(
      'PATCH',
      `${WIDGETS}/gen/status`,
      { spec: { color: 'blue' }, status: { phase: 'Ready', replicas: 1 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(statusWrite.status).toBe(200);
    const afterStatus = statusWrite.json() as {
      spec: { color: string };
      status: unknown;
      metadata: { generation: number };
    };
    expect(afterStatus.spec.color).toBe('red');
    expect(afterStatus.status).toEqual({ phase: 'Ready', replicas: 1 });
    expect(afterStatus.metadata.generation).toBe(1);
    const mainWrite = await call(
      'PATCH',
      `${WIDGETS}/gen`,
      { spec: { color: 'green' }, status: { phase: 'Lost' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    const afterMain = mainWrite.json() as typeof afterStatus;
    expect(afterMain.spec.color).toBe('green');
    expect(afterMain.status).toEqual({ phase: 'Ready', replicas: 1 });
    expect(afterMain.metadata.generation).toBe(2);
    const labelsOnly = await call(
      'PATCH',
      `${WIDGETS}/gen`,
      { metadata: { labels: { extra: 'yes' } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect((labelsOnly.json() as typeof afterStatus).metadata.generation).toBe(2);
  });

  it('validates fields against the schema: Strict refuses, Warn warns, unknown fields are pruned', async () => {
    const body = widget('strict', { unknown: 'x' });
    const strict = await call('POST', `${WIDGETS}?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(strict.json().message).toBe('strict decoding error: unknown field "spec.unknown"');
    const warned = await call('POST', WIDGETS, body);
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe('299 - "unknown field \\"spec.unknown\\""');
    expect((warned.json().spec as Record<string, unknown>).unknown).toBeUndefined();
    const patched = await call(
      'PATCH',
      `${WIDGETS}/strict?fieldValidation=Strict`,
      { spec: { other: 1 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patched.status).toBe(400);
    expect(patched.json().message).toBe('strict decoding error: unknown field "spec.other"');
  });

  it('refuses strategic merge patches with upstream 415', async () => {
    const response = await call(
      'PATCH',
      `${WIDGETS}/one`,
      { spec: { color: 'x' } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(response.status).toBe(415);
    expect(response.json().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('serves the scale subresource from the CRD paths', async () => {
    await call('POST', WIDGETS, widget('scaled', { replicas: 2, selector: 'app=shop' }));
    const scale = (await call('GET', `${WIDGETS}/scaled/scale`)).json();
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=shop' },
    });
    const updated = await call(
      'PATCH',
      `${WIDGETS}/scaled/scale`,
      { spec: { replicas: 5 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(updated.status).toBe(200);
    const object = (await call('GET', `${WIDGETS}/scaled`)).json() as { spec: { replicas: number } };
    expect(object.spec.replicas).toBe(5);
    // Server-side apply on the Scale: the CRD's specReplicasPath is what the applier owns.
    const applyScale = (query: string) =>
      call(
        'PATCH',
        `${WIDGETS}/scaled/scale?fieldManager=autoscaler${query}`,
        'apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: scaled\nspec:\n  replicas: 7\n',
        { 'content-type': 'application/apply-patch+yaml' },
      );
    // The merge patch above made its client (an Update through scale) the owner of the replicas.
    const conflict = await applyScale('');
    expect(conflict.status).toBe(409);
    expect(conflict.json().message).toMatch(
      /^Apply failed with 1 conflict: conflict with "[^"]*" with subresource "scale" using autoscaling\/v1: \.spec\.replicas$/,
    );
    const applied = await applyScale('&force=true');
    expect(applied.status).toBe(200);
    const after = (await call('GET', `${WIDGETS}/scaled`)).json() as {
      spec: { replicas: number };
      metadata: { managedFields: { manager: string; subresource?: string; fieldsV1: unknown }[] };
    };
    expect(after.spec.replicas).toBe(7);
    expect(after.metadata.managedFields.find((entry) => entry.manager === 'autoscaler')).toMatchObject({
      subresource: 'scale',
      apiVersion: 'example.com/v1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
  });

  it('filters by labels, metadata fields and selectable fields', async () => {
    await call('POST', WIDGETS, widget('blue-one', { color: 'blue' }));
    const byField = (await call('GET', `${WIDGETS}?fieldSelector=spec.color%3Dblue`)).json();
    expect((byField.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual([
      'blue-one',
    ]);
    const byName = (await call('GET', `${WIDGETS}?fieldSelector=metadata.name%3Done`)).json();
    expect((byName.items as unknown[]).length).toBe(1);
    const unsupported = await call('GET', `${WIDGETS}?fieldSelector=spec.replicas%3D1`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.json().message).toBe('field label not supported: spec.replicas');
    const byLabel = (await call('GET', `${WIDGETS}?labelSelector=app%3Dnone`)).json();
    expect(byLabel.items).toEqual([]);
  });

  it('prints tables from additionalPrinterColumns', async () => {
    const table = (
      await call('GET', `${WIDGETS}/one`, undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      })
    ).json() as {
      columnDefinitions: { name: string; type: string; priority: number }[];
      rows: { cells: unknown[] }[];
    };
    expect(table.columnDefinitions.map(({ name, type, priority }) => ({ name, type, priority }))).toEqual([
      { name: 'Name', type: 'string', priority: 0 },
      { name: 'Color', type: 'string', priority: 0 },
      { name: 'Replicas', type: 'integer', priority: 1 },
    ]);
    expect(table.rows[0]!.cells).toEqual(['one', 'red', 1]);
  });

  it('publishes the resource in discovery', async () => {
    const list = (await call('GET', '/apis/example.com/v1')).json() as {
      resources: Record<string, unknown>[];
    };
    expect(list.resources.map((r) => r.name)).toEqual(['widgets', 'widgets/scale', 'widgets/status']);
    expect(list.resources[0]).toMatchObject({
      singularName: 'widget',
      namespaced: true,
      kind: 'Widget',
      shortNames: ['wd'],
      categories: ['all'],
    });
    const group = (await call('GET', '/apis/example.com')).json();
    expect(group.preferredVersion).toEqual({ groupVersion: 'example.com/v1', version: 'v1' });
  });
});

describe('custom resources and the controllers', () => {
  it('garbage-collects the dependents of a deleted custom resource', async () => {
    const owner = (await call('POST', WIDGETS, widget('owner'))).json() as { metadata: { uid: string } };
    const dependent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'owned',
        ownerReferences: [
          { apiVersion: 'example.com/v1', kind: 'Widget', name: 'owner', uid: owner.metadata.uid },
        ],
      },
    };
    expect((await call('POST', '/api/v1/namespaces/default/configmaps', dependent)).status).toBe(201);
    expect((await call('DELETE', `${WIDGETS}/owner`)).status).toBe(200);
    await eventually(async () =>
      (await call('GET', '/api/v1/namespaces/default/configmaps/owned')).status === 404 ? true : undefined,
    );
  });

  it('empties a namespace of its custom resources when it is deleted', async () => {
    await call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'doomed' },
    });
    const path = '/apis/example.com/v1/namespaces/doomed/widgets';
    expect((await call('POST', path, widget('inside'))).status).toBe(201);
    expect((await call('DELETE', '/api/v1/namespaces/doomed')).status).toBe(200);
    await eventually(async () =>
      (await call('GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined,
    );
    expect((await call('GET', `${path}/inside`)).status).toBe(404);
  });
});

describe('a custom resource without a status subresource', () => {
  it('takes status on main writes and bumps the generation for it', async () => {
    const crd = widgetCrd();
    (crd.metadata as { name: string }).name = 'notes.parts.example.com';
    Object.assign(crd.spec, { group: 'parts.example.com', names: { plural: 'notes', kind: 'Note' } });
    const versions = (crd.spec as { versions: Record<string, unknown>[] }).versions;
    versions.pop();
    delete versions[0]!.subresources;
    delete versions[0]!.selectableFields;
    expect((await call('POST', CRDS, crd)).status).toBe(201);
    await established('notes.parts.example.com');
    const path = '/apis/parts.example.com/v1/namespaces/default/notes';
    const note = {
      apiVersion: 'parts.example.com/v1',
      kind: 'Note',
      metadata: { name: 'n1' },
      status: { phase: 'New' },
    };
    const created = (await call('POST', path, note)).json() as {
      status: unknown;
      metadata: { generation: number };
    };
    expect(created.status).toEqual({ phase: 'New' });
    const patched = await call(
      'PATCH',
      `${path}/n1`,
      { status: { phase: 'Done' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patched.json()).toMatchObject({ status: { phase: 'Done' }, metadata: { generation: 2 } });
    expect((await call('GET', `${path}/n1/status`)).status).toBe(404);
  });
});

describe('naming conflicts', () => {
  it('refuses names another CRD of the group holds', async () => {
    const created = await call('POST', CRDS, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Widget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const crd = await eventually(async () => {
      const body = (await call('GET', `${CRDS}/gadgets.example.com`)).json();
      const conditions = (body.status as { conditions?: { type: string }[] })?.conditions ?? [];
      return conditions.length > 0 ? body : undefined;
    });
    const conditions = (crd.status as { conditions: Record<string, string>[] }).conditions;
    expect(conditions.find((c) => c.type === 'NamesAccepted')).toMatchObject({
      status: 'False',
      // Every check runs and the last conflict found is the one reported, as upstream.
      reason: 'ListKindConflict',
      message: '"WidgetList" is already in use',
    });
    expect(conditions.find((c) => c.type === 'Established')).toMatchObject({
      status: 'False',
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    });
    // Never established: its finalizer goes without deleting anything.
    expect((await call('DELETE', `${CRDS}/gadgets.example.com`)).status).toBe(200);
    await eventually(async () =>
      (await call('GET', `${CRDS}/gadgets.example.com`)).status === 404 ? true : undefined,
    );
  });
});

describe('webhook conversion', () => {
  it("serves the storage version and answers 500 while the webhook's Service does not exist", async () => {
    const crd = widgetCrd({
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { service: { name: 'converter', namespace: 'default' } },
          conversionReviewVersions: ['v1'],
        },
      },
    });
    (crd.metadata as { name: string }).name = 'levers.parts.example.com';
    Object.assign(crd.spec, { group: 'parts.example.com', names: { plural: 'levers', kind: 'Lever' } });
    const created = await call('POST', CRDS, crd);
    expect(created.status).toBe(201);
    const conversion = (created.json().spec as { conversion: unknown }).conversion;
    expect(conversion).toMatchObject({ webhook: { clientConfig: { service: { port: 443 } } } });
    await established('levers.parts.example.com');
    const lever = { apiVersion: 'parts.example.com/v1', kind: 'Lever', metadata: { name: 'l1' }, spec: {} };
    expect((await call('POST', '/apis/parts.example.com/v1/namespaces/default/levers', lever)).status).toBe(
      201,
    );
    const other = await call('GET', '/apis/parts.example.com/v1beta1/namespaces/default/levers/l1');
    expect(other.status).toBe(500);
    expect(other.json().message).toBe(
      'conversion webhook for parts.example.com/v1, Kind=Lever failed: Post "https://converter.default.svc/?timeout=30s": services "converter" not found',
    );
  });
});

describe('changing the storage version', () => {
  it('records every version ever stored, and reads objects of either through both', async () => {
    const current = (await call('GET', `${CRDS}/widgets.example.com`)).json() as {
      spec: { versions: { name: string; storage: boolean }[] };
    };
    for (const version of current.spec.versions) version.storage = version.name === 'v1beta1';
    const updated = await call('PUT', `${CRDS}/widgets.example.com`, current);
    expect(updated.status).toBe(200);
    expect((updated.json().status as { storedVersions: string[] }).storedVersions).toEqual(['v1', 'v1beta1']);
    await eventually(async () => {
      const created = await call('POST', WIDGETS, widget('stored-beta'));
      return created.status === 201 ? created : undefined;
    });
    const read = (await call('GET', `${WIDGETS}/stored-beta`)).json();
    expect(read.apiVersion).toBe('example.com/v1');
    const removed = updated.json() as typeof current;
    removed.spec.versions = removed.spec.versions.filter((version) => version.name === 'v1beta1');
    const refused = await call('PUT', `${CRDS}/widgets.example.com`, removed);
    expect(refused.status).toBe(422);
    expect(refused.json().message).toContain(
      'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
    );
  });
});

describe('deleting a CustomResourceDefinition', () => {
  it('refuses creates while it terminates, and waits for instances held by finalizers', async () => {
    const crd = widgetCrd();
    (crd.metadata as { name: string }).name = 'gears.parts.example.com';
    Object.assign(crd.spec, { group: 'parts.example.com', names: { plural: 'gears', kind: 'Gear' } });
    (crd.spec as { versions: unknown[] }).versions.pop();
    for (const version of (crd.spec as { versions: Record<string, unknown>[] }).versions)
      delete version.selectableFields;
    expect((await call('POST', CRDS, crd)).status).toBe(201);
    await established('gears.parts.example.com');
    const path = '/apis/parts.example.com/v1/namespaces/default/gears';
    const held = {
      apiVersion: 'parts.example.com/v1',
      kind: 'Gear',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
      spec: {},
    };
    expect((await call('POST', path, held)).status).toBe(201);
    expect((await call('DELETE', `${CRDS}/gears.parts.example.com`)).status).toBe(200);
    const terminating = await eventually(async () => {
      const body = (await call('GET', `${CRDS}/gears.parts.example.com`)).json();
      const conditions = (body.status as { conditions: Record<string, string>[] }).conditions;
      const condition = conditions.find((c) => c.type === 'Terminating');
      return condition?.reason === 'InstanceDeletionInProgress' ? condition : undefined;
    });
    expect(terminating).toMatchObject({ status: 'True', message: 'CustomResource deletion is in progress' });
    const refused = await call('POST', path, { ...held, metadata: { name: 'late' } });
    expect(refused.status).toBe(405);
    expect(refused.json()).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'create not allowed while custom resource definition is terminating',
    });
    await call(
      'PATCH',
      `${path}/held`,
      { metadata: { finalizers: null } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    await eventually(async () =>
      (await call('GET', `${CRDS}/gears.parts.example.com`)).status === 404 ? true : undefined,
    );
  });

  it('deletes its instances first, then goes', async () => {
    const crd = widgetCrd();
    (crd.metadata as { name: string }).name = 'sprockets.parts.example.com';
    Object.assign(crd.spec, { group: 'parts.example.com', names: { plural: 'sprockets', kind: 'Sprocket' } });
    (crd.spec as { versions: unknown[] }).versions.pop();
    for (const version of (crd.spec as { versions: Record<string, unknown>[] }).versions)
      delete version.selectableFields;
    expect((await call('POST', CRDS, crd)).status).toBe(201);
    await established('sprockets.parts.example.com');
    const path = '/apis/parts.example.com/v1/namespaces/default/sprockets';
    const sprocket = {
      apiVersion: 'parts.example.com/v1',
      kind: 'Sprocket',
      metadata: { name: 's1' },
      spec: {},
    };
    expect((await call('POST', path, sprocket)).status).toBe(201);
    const deleted = await call('DELETE', `${CRDS}/sprockets.parts.example.com`);
    expect(deleted.status).toBe(200);
    expect((deleted.json().metadata as { finalizers: string[] }).finalizers).toEqual([
      'customresourcecleanup.apiextensions.k8s.io',
    ]);
    await eventually(async () =>
      (await call('GET', `${CRDS}/sprockets.parts.example.com`)).status === 404 ? true : undefined,
    );
    const gone = await call('GET', path);
    expect(gone.status).toBe(404);
    expect(controlPlane.apiServer.resourceStore('parts.example.com', 'v1', 'sprockets')).toBeUndefined();
  });
});
