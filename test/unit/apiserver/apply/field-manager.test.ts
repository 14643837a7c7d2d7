// apimachinery's managedfields FieldManager: apply, update and managedFields entries.
import { describe, expect, it } from 'vitest';
import { FieldManager } from '../../../../src/apiserver/apply/field-manager.js';
import { fieldElement } from '../../../../src/apiserver/apply/fieldpath/path-element.js';
import { FieldSet } from '../../../../src/apiserver/apply/fieldpath/set.js';
import { decodeManagedFields } from '../../../../src/apiserver/apply/managed-fields.js';
import { sameSchemaConverter } from '../../../../src/apiserver/apply/merge/updater.js';
import { builtinType } from '../../../../src/apiserver/apply/typed/builtin-types.js';
import { customResourceType } from '../../../../src/apiserver/apply/typed/custom-resource-types.js';
import type { SchemaType } from '../../../../src/apiserver/apply/typed/schema.js';
import type { JsonObject } from '../../../../src/apiserver/patch/json-value.js';
import { conflictOf, managedEntries as managed } from './support.js';

const T0 = new Date('2026-11-28T00:00:00Z');

function manager(kind: 'ConfigMap' | 'Deployment', clock: { t: Date } = { t: T0 }): FieldManager {
  const group = kind === 'ConfigMap' ? '' : 'apps';
  const type = builtinType(group, 'v1', kind) as SchemaType;
  return new FieldManager({
    apiVersion: kind === 'ConfigMap' ? 'v1' : 'apps/v1',
    kind,
    converter: sameSchemaConverter(type),
    now: () => clock.t,
  });
}

function cm(data: Record<string, string>, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', ...extra },
    data,
  };
}

describe('apply', () => {
  it('creates with one Apply entry in upstream form', () => {
    const fm = manager('ConfigMap');
    const created = fm.apply({}, cm({ key: 'a' }), 'kubectl', false);
    expect(created.data).toEqual({ key: 'a' });
    expect(managed(created)).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2026-11-28T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} } },
      },
    ]);
  });

  it('refuses to change a field another manager updated, with upstream text and causes', () => {
    const fm = manager('ConfigMap');
    const live = fm.update({ metadata: { uid: '' } }, cm({ key: 'a' }), 'kubectl-client-side-apply');
    const error = conflictOf(() => fm.apply(live, cm({ key: 'b' }), 'kubectl', false));
    expect(error.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key',
    );
    expect(error.causes()).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-client-side-apply" using v1',
        field: '.data.key',
      },
    ]);
    // Applying the same value is no conflict: the field becomes shared.
    const shared = fm.apply(live, cm({ key: 'a' }), 'kubectl', false);
    expect(managed(shared).map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['kubectl', { 'f:data': { 'f:key': {} } }],
      ['kubectl-client-side-apply', { 'f:data': { '.': {}, 'f:key': {} } }],
    ]);
  });

  it('words several conflicts per manager, managers sorted', () => {
    const fm = manager('ConfigMap');
    let live = fm.apply({}, cm({ a: '1', b: '1' }), 'zeta', false);
    live = fm.apply(live, cm({ c: '1' }), 'alpha', false);
    const error = conflictOf(() => fm.apply(live, cm({ a: '2', b: '2', c: '2' }), 'third', false));
    expect(error.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha":\n- .data.c\nconflicts with "zeta":\n- .data.a\n- .data.b',
    );
  });

  it('takes fields over with force', () => {
    const fm = manager('ConfigMap');
    let live = fm.apply({}, cm({ key: 'a', other: 'x' }), 'first', false);
    live = fm.apply(live, cm({ key: 'b' }), 'second', true);
    expect(live.data).toEqual({ key: 'b', other: 'x' });
    expect(managed(live).map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['first', { 'f:data': { 'f:other': {} } }],
      ['second', { 'f:data': { 'f:key': {} } }],
    ]);
  });

  it('removes fields the applier dropped unless another manager owns them', () => {
    const fm = manager('ConfigMap');
    let live = fm.apply({}, cm({ a: '1', b: '1', c: '1' }), 'one', false);
    live = fm.apply(live, cm({ c: '1' }), 'two', false);
    live = fm.apply(live, cm({ a: '1' }), 'one', false);
    expect(live.data).toEqual({ a: '1', c: '1' });
    // "two" changed nothing, so (as upstream) its entry has no time and sorts first.
    expect(managed(live).map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ['two', undefined, { 'f:data': { 'f:c': {} } }],
      ['one', '2026-11-28T00:00:00Z', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  it('leaves the object and times alone when an apply changes nothing', () => {
    const clock = { t: T0 };
    const fm = manager('ConfigMap', clock);
    const live = fm.apply({}, cm({ a: '1' }), 'one', false);
    clock.t = new Date('2026-11-28T01:00:00Z');
    expect(fm.apply(live, cm({ a: '1' }), 'one', false)).toEqual(live);
  });

  it('attributes existing fields to before-first-apply on the first apply', () => {
    const fm = manager('ConfigMap');
    const live = { ...cm({ a: '1' }), metadata: { name: 'c', namespace: 'default', uid: 'u' } };
    const applied = fm.apply(live, cm({ b: '2' }), 'kubectl', false);
    expect(managed(applied).map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['kubectl', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }],
    ]);
  });

  it('shares a list map between managers, each removing only its own items', () => {
    const fm = manager('Deployment');
    const base = (containers: JsonObject[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers } } },
    });
    let live = fm.apply({}, base([{ name: 'a', image: 'a:1' }]), 'one', false);
    live = fm.apply(live, base([{ name: 'b', image: 'b:1' }]), 'two', false);
    const containers = () =>
      (
        (((live.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[]
      ).map((c) => c.name);
    expect(containers()).toEqual(['a', 'b']);
    live = fm.apply(live, base([]), 'one', false);
    expect(containers()).toEqual(['b']);
    const error = conflictOf(() => fm.apply(live, base([{ name: 'b', image: 'b:2' }]), 'one', false));
    expect(error.message).toBe(
      'Apply failed with 1 conflict: conflict with "two": .spec.template.spec.containers[name="b"].image',
    );
  });

  it('refuses a patch of another group, version or kind, or carrying managedFields', () => {
    const fm = manager('ConfigMap');
    expect(() => fm.apply({}, { ...cm({}), apiVersion: 'v2' }, 'm', false)).toThrow(
      'invalid object type: /v2, Kind=ConfigMap',
    );
    expect(() => fm.apply({}, { ...cm({}), apiVersion: 'apps/v1', kind: 'Secret' }, 'm', false)).toThrow(
      'invalid object type: apps/v1, Kind=Secret',
    );
    expect(() => fm.apply({}, cm({}, { managedFields: [] }), 'm', false)).toThrow(
      'metadata.managedFields must be nil',
    );
  });
});

describe('update', () => {
  it('moves changed fields to the updater and stamps its time', () => {
    const clock = { t: T0 };
    const fm = manager('ConfigMap', clock);
    let live = fm.apply({}, cm({ a: '1', b: '1' }), 'applier', false);
    clock.t = new Date('2026-11-28T00:05:00Z');
    live = fm.update(live, { ...cm({ a: '2', b: '1' }), metadata: live.metadata as JsonObject }, 'editor');
    expect(managed(live).map((e) => [e.manager, e.operation, e.apiVersion, e.time, e.fieldsV1])).toEqual([
      ['applier', 'Apply', 'v1', '2026-11-28T00:00:00Z', { 'f:data': { 'f:b': {} } }],
      ['editor', 'Update', 'v1', '2026-11-28T00:05:00Z', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  it('does not start tracking an existing object nobody tracks', () => {
    const fm = manager('ConfigMap');
    const live = { ...cm({ a: '1' }), metadata: { name: 'c', uid: 'u' } };
    const updated = fm.update(live, { ...live, data: { a: '2' } }, 'editor');
    expect(managed(updated)).toEqual([]);
  });

  it('resets managed fields when the client sends [{}]', () => {
    const fm = manager('ConfigMap');
    const live = fm.apply({}, cm({ a: '1' }), 'applier', false);
    const reset = fm.update(
      live,
      { ...cm({ a: '1' }), metadata: { name: 'c', managedFields: [{}] } },
      'editor',
    );
    expect(managed(reset)).toEqual([]);
  });

  it('caps update managers at ten, folding the oldest into ancient-changes', () => {
    const clock = { t: T0 };
    const fm = manager('ConfigMap', clock);
    let live: JsonObject = fm.update({}, cm({}), 'creator');
    for (let i = 0; i < 11; i++) {
      clock.t = new Date(T0.getTime() + (i + 1) * 1000);
      live = fm.update(
        live,
        { ...live, data: { ...(live.data as JsonObject), [`k${i}`]: 'v' } },
        `m${String(i).padStart(2, '0')}`,
      );
    }
    const names = managed(live).map((e) => e.manager);
    expect(names).toHaveLength(10);
    expect(names[0]).toBe('ancient-changes');
    expect(managed(live)[0]?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } });
  });
});

describe('decoding managedFields', () => {
  it('refuses entries upstream refuses', () => {
    const entry = {
      manager: 'm',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    expect(() => decodeManagedFields([entry])).not.toThrow();
    expect(() => decodeManagedFields([{ ...entry, operation: 'Patch' }])).toThrow(
      'operation must be `Apply` or `Update`',
    );
    expect(() => decodeManagedFields([{ ...entry, apiVersion: '' }])).toThrow('apiVersion must not be empty');
    expect(() => decodeManagedFields([{ ...entry, fieldsType: '' }])).toThrow(
      'missing fieldsType in managed fields entry 0',
    );
    expect(() => decodeManagedFields([{ ...entry, fieldsType: 'FieldsV2' }])).toThrow(
      'invalid fieldsType "FieldsV2" in managed fields entry 0',
    );
  });
});

describe('custom resources', () => {
  it('applies along the CRD schema: list-map items per manager, preserved fields granular', () => {
    const type = customResourceType({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['id'],
              items: { type: 'object', properties: { id: { type: 'string' }, size: { type: 'integer' } } },
            },
            extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    });
    const fm = new FieldManager({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      converter: sameSchemaConverter(type),
      now: () => T0,
    });
    const thing = (spec: JsonObject): JsonObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      spec,
    });
    let live = fm.apply({}, thing({ items: [{ id: 'a', size: 1 }], extra: { x: { y: 1 } } }), 'one', false);
    live = fm.apply(live, thing({ items: [{ id: 'b', size: 2 }], extra: { z: true } }), 'two', false);
    expect(live.spec).toEqual({
      items: [
        { id: 'a', size: 1 },
        { id: 'b', size: 2 },
      ],
      extra: { x: { y: 1 }, z: true },
    });
    const error = conflictOf(() => fm.apply(live, thing({ items: [{ id: 'a', size: 5 }] }), 'two', false));
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "one": .spec.items[id="a"].size');
    live = fm.apply(live, thing({}), 'one', false);
    expect(live.spec).toEqual({ items: [{ id: 'b', size: 2 }], extra: { z: true } });
  });

  it('refuses a configuration with duplicate list-map keys', () => {
    const fm = manager('Deployment');
    const config = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } },
    };
    expect(() => fm.apply({}, config, 'm', false)).toThrow(
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    );
  });
});

describe('reset fields', () => {
  it('leaves fields a strategy resets out of every set (status on the main resource)', () => {
    const type = builtinType('apps', 'v1', 'Deployment') as SchemaType;
    const fm = new FieldManager({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      converter: sameSchemaConverter(type),
      ignoredFields: new Map([['apps/v1', FieldSet.of([fieldElement('status')])]]),
      now: () => T0,
    });
    const config = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 1 },
      status: { replicas: 3 },
    };
    const live = fm.apply({}, config, 'm', false);
    expect(managed(live).map((e) => e.fieldsV1)).toEqual([{ 'f:spec': { 'f:replicas': {} } }]);
    const updated = fm.update(live, { ...live, status: { replicas: 4 } }, 'controller');
    expect(managed(updated).map((e) => e.manager)).toEqual(['m']);
  });
});

describe('client-side to server-side apply', () => {
  const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
  function clientSideApplied(fm: FieldManager, data: Record<string, string>): JsonObject {
    const config = cm(data);
    const object = cm(data, { annotations: { [LAST]: `${JSON.stringify(config)}\n` } });
    return fm.update({}, object, 'kubectl-client-side-apply');
  }

  it('lets kubectl take over fields the last-applied configuration still describes', () => {
    const fm = manager('ConfigMap');
    const live = clientSideApplied(fm, { key: 'a' });
    expect(() => fm.apply(live, cm({ key: 'b' }), 'other', false)).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key',
    );
    const applied = fm.apply(live, cm({ key: 'b' }), 'kubectl', false);
    expect(applied.data).toEqual({ key: 'b' });
    const annotations = (applied.metadata as JsonObject).annotations as JsonObject;
    expect(annotations[LAST]).toBe(
      '{"apiVersion":"v1","data":{"key":"b"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}\n',
    );
    expect(managed(applied).find((e) => e.manager === 'kubectl')?.fieldsV1).toEqual({
      'f:data': { 'f:key': {} },
    });
  });

  it('still refuses fields changed since the last client-side apply', () => {
    const fm = manager('ConfigMap');
    let live = clientSideApplied(fm, { key: 'a' });
    live = fm.update(live, { ...live, data: { key: 'edited' } }, 'kubectl-edit');
    expect(() => fm.apply(live, cm({ key: 'b' }), 'kubectl', false)).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.key',
    );
  });
});
