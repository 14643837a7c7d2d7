// persistentVolumeClaimRetentionPolicy as owner references on a StatefulSet's claims.
import { describe, expect, it } from 'vitest';
import type { StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { PersistentVolumeClaim, Pod } from '../../../src/api/types/core-v1.generated.js';
import { claimOwnersFor } from '../../../src/controllers/statefulset/claim-retention.js';

const set = (whenDeleted: string, whenScaled: string): StatefulSet => ({
  metadata: { name: 's', uid: 'set' },
  spec: {
    selector: {},
    template: {},
    persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled },
  },
});
const pod: Pod = { metadata: { name: 's-0', uid: 'pod' } };
const claim = (...uids: string[]): PersistentVolumeClaim => ({
  metadata: {
    name: 'c',
    ownerReferences: uids.map((uid) => ({ apiVersion: 'v1', kind: 'X', name: uid, uid })),
  },
});
const uids = (refs: { uid: string }[] | undefined) => refs?.map((ref) => ref.uid);

describe('claim retention', () => {
  it('makes the set an owner for whenDeleted Delete, and the pod once condemned for whenScaled Delete', () => {
    expect(uids(claimOwnersFor(claim(), set('Delete', 'Retain'), pod, false))).toEqual(['set']);
    expect(claimOwnersFor(claim(), set('Retain', 'Delete'), pod, false)).toBeUndefined();
    expect(uids(claimOwnersFor(claim(), set('Retain', 'Delete'), pod, true))).toEqual(['pod']);
    expect(uids(claimOwnersFor(claim(), set('Delete', 'Delete'), pod, true))).toEqual(['set', 'pod']);
  });

  it('removes its references under Retain, keeps other owners, and reports no change when all fit', () => {
    expect(uids(claimOwnersFor(claim('set', 'other'), set('Retain', 'Retain'), pod, false))).toEqual([
      'other',
    ]);
    expect(claimOwnersFor(claim('set'), set('Delete', 'Retain'), pod, false)).toBeUndefined();
    expect(claimOwnersFor(claim('other'), set('Retain', 'Retain'), pod, true)).toBeUndefined();
  });
});
