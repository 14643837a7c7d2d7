// managedFields entries recorded at one API version and used from another (upstream's
// versionConverter): HPA autoscaling/v1 ↔ v2 through the internal form, and a CRD's versions
// (conversion None, each version with its own schema).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/api/object.js';
import type { JSONSchemaProps } from '../../../../src/api/types/apiextensions-v1.generated.js';
import { FieldManager } from '../../../../src/apiserver/apply/field-manager.js';
import {
  VersionConversionError,
  versionConverter,
} from '../../../../src/apiserver/apply/version-converter.js';
import { convert } from '../../../../src/apiserver/conversion/index.js';
import {
  builtinKindVersions,
  customResourceKindVersions,
} from '../../../../src/apiserver/handlers/apply-versions.js';
import type { JsonObject } from '../../../../src/apiserver/patch/json-value.js';
import { conflictOf, managedEntries as entries } from './support.js';

const now = () => new Date('2026-11-28T00:00:00Z');
const HPA = 'HorizontalPodAutoscaler';

function hpaManager(apiVersion: 'autoscaling/v1' | 'autoscaling/v2'): FieldManager {
  return new FieldManager({
    apiVersion,
    kind: HPA,
    converter: versionConverter(builtinKindVersions(apiVersion, HPA)),
    now,
  });
}

/** The object as a handler of `version` reads it from storage (autoscaling/v2). */
function at(object: JsonObject, version: 'v1' | 'v2'): JsonObject {
  return convert(object as KubeObject, { group: 'autoscaling', version }) as JsonObject;
}

const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const v1Config = (cpu: number, max: number): JsonObject => ({
  apiVersion: 'autoscaling/v1',
  kind: HPA,
  metadata: { name: 'web', namespace: 'default' },
  spec: { scaleTargetRef: target, maxReplicas: max, targetCPUUtilizationPercentage: cpu },
});
const v2Config = (spec: JsonObject): JsonObject => ({
  apiVersion: 'autoscaling/v2',
  kind: HPA,
  metadata: { name: 'web', namespace: 'default' },
  spec: { scaleTargetRef: target, ...spec },
});
const cpuMetric = (utilization: number): JsonObject => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } },
});

describe('managed fields across HorizontalPodAutoscaler versions', () => {
  // Created through autoscaling/v1 by "old", stored as autoscaling/v2.
  const created = at(hpaManager('autoscaling/v1').apply({}, v1Config(50, 5), 'old', false), 'v2');

  it('keeps each entry at the version it was recorded', () => {
    const shared = hpaManager('autoscaling/v2').apply(
      created,
      v2Config({ maxReplicas: 5, minReplicas: 2 }),
      'new',
      false,
    );
    expect(entries(shared).map((e) => [e.manager, e.apiVersion])).toEqual([
      ['new', 'autoscaling/v2'],
      ['old', 'autoscaling/v1'],
    ]);
    expect(entries(shared)[1]?.fieldsV1).toEqual({
      'f:spec': {
        'f:maxReplicas': {},
        'f:scaleTargetRef': {},
        'f:targetCPUUtilizationPercentage': {},
      },
    });
  });

  it('names the v1 field a v2 apply would change, and takes it with force', () => {
    const v2 = hpaManager('autoscaling/v2');
    const config = v2Config({ maxReplicas: 5, metrics: [cpuMetric(70)] });
    expect(conflictOf(() => v2.apply(created, config, 'new', false)).message).toBe(
      'Apply failed with 1 conflict: conflict with "old": .spec.targetCPUUtilizationPercentage',
    );
    const forced = v2.apply(created, config, 'new', true);
    const old = entries(forced).find((e) => e.manager === 'old');
    expect(old?.apiVersion).toBe('autoscaling/v1');
    expect(old?.fieldsV1).toEqual({ 'f:spec': { 'f:maxReplicas': {}, 'f:scaleTargetRef': {} } });
    // The v1 applier now conflicts on the v2 path the new owner holds.
    const back = at(forced, 'v1');
    expect(
      conflictOf(() => hpaManager('autoscaling/v1').apply(back, v1Config(50, 5), 'old', false)).message,
    ).toBe('Apply failed with 1 conflict: conflict with "new": .spec.metrics');
  });

  it('moves a field from a v1 applier to a v2 updater', () => {
    const next = { ...created, spec: { ...(created.spec as JsonObject), maxReplicas: 9 } };
    const updated = hpaManager('autoscaling/v2').update(created, next, 'editor');
    const byManager = new Map(entries(updated).map((e) => [e.manager, e]));
    expect(byManager.get('editor')).toMatchObject({
      operation: 'Update',
      apiVersion: 'autoscaling/v2',
      fieldsV1: { 'f:spec': { 'f:maxReplicas': {} } },
    });
    expect(byManager.get('old')?.fieldsV1).toEqual({
      'f:spec': { 'f:scaleTargetRef': {}, 'f:targetCPUUtilizationPercentage': {} },
    });
  });

  it('prunes what a manager applied at v1 and no longer applies at v2', () => {
    // "old" moves to v2 and leaves minReplicas out of what it applied through v1 with it.
    const withMin = at(
      hpaManager('autoscaling/v1').apply(
        at(created, 'v1'),
        { ...v1Config(50, 5), spec: { ...(v1Config(50, 5).spec as JsonObject), minReplicas: 3 } },
        'old',
        false,
      ),
      'v2',
    );
    expect((withMin.spec as JsonObject).minReplicas).toBe(3);
    const moved = hpaManager('autoscaling/v2').apply(
      withMin,
      v2Config({ maxReplicas: 5, metrics: [cpuMetric(50)] }),
      'old',
      false,
    );
    expect((moved.spec as JsonObject).minReplicas).toBeUndefined();
    expect(entries(moved).map((e) => [e.manager, e.apiVersion])).toEqual([['old', 'autoscaling/v2']]);
  });

  it('drops an entry recorded at a version the kind no longer has', () => {
    const stale = {
      ...created,
      metadata: {
        ...(created.metadata as JsonObject),
        managedFields: [
          ...entries(created),
          {
            manager: 'gone',
            operation: 'Update',
            apiVersion: 'autoscaling/v2beta2',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:minReplicas': {} } },
          },
        ],
      },
    } as unknown as JsonObject;
    const applied = hpaManager('autoscaling/v2').apply(
      stale,
      v2Config({ maxReplicas: 5, minReplicas: 1 }),
      'new',
      false,
    );
    expect(entries(applied).map((e) => e.manager)).toEqual(['new', 'old']);
  });
});

const partsSchema = (listType: 'map' | 'atomic'): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        parts: {
          type: 'array',
          'x-kubernetes-list-type': listType,
          ...(listType === 'map' ? { 'x-kubernetes-list-map-keys': ['name'] } : {}),
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, count: { type: 'integer' } },
          },
        },
      },
    },
  },
});

function gadgetManager(version: string, schemas: Map<string, JSONSchemaProps>): FieldManager {
  return new FieldManager({
    apiVersion: `ssa.tkube.dev/${version}`,
    kind: 'Gadget',
    converter: versionConverter(
      customResourceKindVersions('ssa.tkube.dev', `ssa.tkube.dev/${version}`, 'Gadget', schemas),
    ),
    now,
  });
}

const gadget = (version: string, parts: JsonObject[]): JsonObject => ({
  apiVersion: `ssa.tkube.dev/${version}`,
  kind: 'Gadget',
  metadata: { name: 'g', namespace: 'default' },
  spec: { parts },
});

describe('managed fields across a CRD’s versions', () => {
  const schemas = new Map([
    ['v1', partsSchema('map')],
    ['v2', partsSchema('atomic')],
  ]);

  it('compares a v1 entry with the v1 schema when applying at v2', () => {
    const created = gadgetManager('v1', schemas).apply(
      {},
      gadget('v1', [{ name: 'a', count: 1 }]),
      'one',
      false,
    );
    expect(entries(created)[0]?.fieldsV1).toEqual({
      'f:spec': { 'f:parts': { 'k:{"name":"a"}': { '.': {}, 'f:count': {}, 'f:name': {} } } },
    });
    // Stored and read back at v2: only apiVersion changes.
    const live = { ...created, apiVersion: 'ssa.tkube.dev/v2' };
    const v2 = gadgetManager('v2', schemas);
    expect(
      conflictOf(() => v2.apply(live, gadget('v2', [{ name: 'a', count: 5 }]), 'two', false)).message,
    ).toBe('Apply failed with 1 conflict: conflict with "one": .spec.parts[name="a"].count');
    // At v2 the list is atomic: "two" owns it whole, "one" keeps its v1 entry for what is left.
    const forced = v2.apply(live, gadget('v2', [{ name: 'a', count: 5 }]), 'two', true);
    expect(entries(forced).map((e) => [e.manager, e.apiVersion, e.fieldsV1])).toEqual([
      [
        'one',
        'ssa.tkube.dev/v1',
        { 'f:spec': { 'f:parts': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} } } } },
      ],
      ['two', 'ssa.tkube.dev/v2', { 'f:spec': { 'f:parts': {} } }],
    ]);
  });

  it('fails as crConverter does for an entry at a version the CRD no longer has', () => {
    const created = gadgetManager('v1', schemas).apply({}, gadget('v1', [{ name: 'a' }]), 'one', false);
    const onlyV2 = new Map([['v2', partsSchema('atomic')]]);
    const live = { ...created, apiVersion: 'ssa.tkube.dev/v2' };
    expect(() =>
      gadgetManager('v2', onlyV2).apply(live, gadget('v2', [{ name: 'b' }]), 'two', false),
    ).toThrow(
      new VersionConversionError('request to convert CR to an invalid group/version: ssa.tkube.dev/v1'),
    );
  });
});

describe('managed fields across the two groups serving Event', () => {
  const eventsManager = (apiVersion: 'v1' | 'events.k8s.io/v1') =>
    new FieldManager({
      apiVersion,
      kind: 'Event',
      converter: versionConverter(builtinKindVersions(apiVersion, 'Event')),
      now,
    });

  it('names the events.k8s.io field a core apply would change', () => {
    const created = eventsManager('events.k8s.io/v1').apply(
      {},
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'e', namespace: 'default' },
        note: 'first',
        reason: 'Tested',
      },
      'recorder',
      false,
    );
    // Stored (and read back through the core group) as a core v1 Event.
    const live = convert(created as KubeObject, { group: '', version: 'v1' }) as JsonObject;
    expect(live.message).toBe('first');
    const core = eventsManager('v1');
    const config: JsonObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      message: 'second',
    };
    expect(conflictOf(() => core.apply(live, config, 'other', false)).message).toBe(
      'Apply failed with 1 conflict: conflict with "recorder": .note',
    );
    const forced = core.apply(live, config, 'other', true);
    expect(entries(forced).map((e) => [e.manager, e.apiVersion, e.fieldsV1])).toEqual([
      ['other', 'v1', { 'f:message': {} }],
      ['recorder', 'events.k8s.io/v1', { 'f:reason': {} }],
    ]);
  });
});
