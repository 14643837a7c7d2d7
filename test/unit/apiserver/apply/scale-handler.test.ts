// apimachinery's managedfields ScaleHandler: parent entries seen as Scale entries and merged back.
import { describe, expect, it } from 'vitest';
import type { ManagedFieldsEntry } from '../../../../src/api/object.js';
import { fieldElement } from '../../../../src/apiserver/apply/fieldpath/path-element.js';
import {
  parentEntriesFromScale,
  replicasPathOf,
  scaleEntriesFromParent,
} from '../../../../src/apiserver/apply/scale-handler.js';

const PATHS = new Map([['apps/v1', [fieldElement('spec'), fieldElement('replicas')]]]);
const T = '2026-11-28T00:00:00Z';

function entry(manager: string, fieldsV1: Record<string, unknown>, extra: ManagedFieldsEntry = {}) {
  return {
    manager,
    operation: 'Apply',
    apiVersion: 'apps/v1',
    time: T,
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...extra,
  } as ManagedFieldsEntry;
}

const OWNS_REPLICAS = { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } };

describe('scale handler', () => {
  it('shows only the entries owning the replicas path, as Scale entries', () => {
    const parent = [entry('alice', OWNS_REPLICAS), entry('bob', { 'f:spec': { 'f:paused': {} } })];
    expect(scaleEntriesFromParent(parent, PATHS)).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'autoscaling/v1',
        time: T,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ]);
  });

  it('moves the replicas path to a manager that wrote it through scale and keeps the rest', () => {
    const parent = [entry('alice', OWNS_REPLICAS)];
    const scale = [
      entry(
        'hpa',
        { 'f:spec': { 'f:replicas': {} } },
        { apiVersion: 'autoscaling/v1', subresource: 'scale' },
      ),
    ];
    const merged = parentEntriesFromScale(parent, scale, PATHS, 'apps/v1') ?? [];
    expect(merged.map((e) => [e.manager, e.apiVersion, e.subresource, e.fieldsV1])).toEqual([
      ['hpa', 'apps/v1', 'scale', { 'f:spec': { 'f:replicas': {} } }],
      ['alice', 'apps/v1', undefined, { 'f:spec': { 'f:paused': {} } }],
    ]);
    // As upstream, the new entry's time is the parent's (none yet), so it sorts first.
    expect(merged[0]?.time).toBeUndefined();
  });

  it('keeps a manager whose Scale entry still owns replicas, and drops one left with nothing', () => {
    const parent = [entry('alice', OWNS_REPLICAS), entry('carol', { 'f:spec': { 'f:replicas': {} } })];
    const scale = [entry('alice', { 'f:spec': { 'f:replicas': {} } }, { apiVersion: 'autoscaling/v1' })];
    const merged = parentEntriesFromScale(parent, scale, PATHS, 'apps/v1') ?? [];
    expect(merged.map((e) => e.manager)).toEqual(['alice']);
    expect(merged[0]?.fieldsV1).toEqual(OWNS_REPLICAS);
  });

  it('reads a CRD specReplicasPath as a field path', () => {
    expect(replicasPathOf('.spec.size.replicas')).toEqual([
      fieldElement('spec'),
      fieldElement('size'),
      fieldElement('replicas'),
    ]);
  });
});
