// FindMatchingVolume and its checks, as component-helpers' pv_helpers tests state them.
import { describe, expect, it } from 'vitest';
import {
  findMatchingVolume,
  volumeFitsNode,
  volumeMismatch,
} from '../../../../src/api/storage/persistent-volumes.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../../../src/api/types/core-v1.generated.js';

function volume(
  name: string,
  size: string,
  extra: Partial<PersistentVolume['spec']> = {},
  labels?: Record<string, string>,
): PersistentVolume {
  return {
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], ...extra },
    status: { phase: 'Available' },
  };
}

function claim(size: string, extra: Partial<PersistentVolumeClaim['spec']> = {}): PersistentVolumeClaim {
  return {
    metadata: { namespace: 'ns', name: 'data', uid: 'u1' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...extra },
  };
}

const names = (found: PersistentVolume | undefined) => found?.metadata?.name;

describe('findMatchingVolume', () => {
  it('picks the smallest volume that holds the request', () => {
    const volumes = [volume('big', '10Gi'), volume('small', '1Gi'), volume('mid', '2Gi')];
    expect(names(findMatchingVolume(claim('1500Mi'), volumes, undefined, false))).toBe('mid');
    expect(names(findMatchingVolume(claim('1Gi'), volumes, undefined, false))).toBe('small');
  });

  it('never binds a claim to a volume smaller than it asks for', () => {
    expect(findMatchingVolume(claim('5Gi'), [volume('small', '1Gi')], undefined, false)).toBeUndefined();
  });

  it('matches class, access modes, volume mode and selector', () => {
    const volumes = [
      volume('fast', '1Gi', { storageClassName: 'fast' }),
      volume('rwx', '1Gi', { accessModes: ['ReadWriteMany', 'ReadWriteOnce'] }),
      volume('block', '1Gi', { volumeMode: 'Block' }),
      volume('labelled', '3Gi', {}, { tier: 'gold' }),
    ];
    expect(
      names(findMatchingVolume(claim('1Gi', { storageClassName: 'fast' }), volumes, undefined, false)),
    ).toBe('fast');
    expect(
      names(findMatchingVolume(claim('1Gi', { accessModes: ['ReadWriteMany'] }), volumes, undefined, false)),
    ).toBe('rwx');
    expect(names(findMatchingVolume(claim('1Gi', { volumeMode: 'Block' }), volumes, undefined, false))).toBe(
      'block',
    );
    const selected = claim('1Gi', { selector: { matchLabels: { tier: 'gold' } } });
    expect(names(findMatchingVolume(selected, volumes, undefined, false))).toBe('labelled');
  });

  it('prefers a volume pre-bound to the claim and skips volumes claimed by others', () => {
    const prebound = volume('mine', '100Gi', { claimRef: { namespace: 'ns', name: 'data' } });
    const others = volume('theirs', '1Gi', { claimRef: { namespace: 'ns', name: 'other', uid: 'u2' } });
    expect(
      names(findMatchingVolume(claim('1Gi'), [others, volume('free', '1Gi'), prebound], undefined, false)),
    ).toBe('mine');
    expect(findMatchingVolume(claim('1Gi'), [others], undefined, false)).toBeUndefined();
  });

  it('with delayed binding and no node, considers only pre-bound volumes; a node filters by affinity', () => {
    const pinned = volume('pinned', '1Gi', {
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a'] }] },
          ],
        },
      },
    });
    expect(findMatchingVolume(claim('1Gi'), [pinned], undefined, true)).toBeUndefined();
    const nodeA = { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } };
    const nodeB = { name: 'node-b', labels: { 'kubernetes.io/hostname': 'node-b' } };
    expect(names(findMatchingVolume(claim('1Gi'), [pinned], nodeA, true))).toBe('pinned');
    expect(findMatchingVolume(claim('1Gi'), [pinned], nodeB, true)).toBeUndefined();
  });

  it('skips volumes that are not Available or are being deleted', () => {
    const released = { ...volume('released', '1Gi'), status: { phase: 'Released' } };
    const deleting = volume('deleting', '1Gi');
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' };
    expect(findMatchingVolume(claim('1Gi'), [released, deleting], undefined, false)).toBeUndefined();
  });
});

describe('volumeMismatch (checkVolumeSatisfyClaim)', () => {
  it('names the first unmet requirement as the binder does', () => {
    expect(volumeMismatch(volume('v', '1Gi'), claim('2Gi'))).toBe('requested PV is too small');
    expect(volumeMismatch(volume('v', '1Gi'), claim('1Gi', { storageClassName: 'x' }))).toBe(
      'storageClassName does not match',
    );
    expect(volumeMismatch(volume('v', '1Gi'), claim('1Gi', { volumeMode: 'Block' }))).toBe(
      'incompatible volumeMode',
    );
    expect(volumeMismatch(volume('v', '1Gi'), claim('1Gi', { accessModes: ['ReadOnlyMany'] }))).toBe(
      'incompatible accessMode',
    );
    expect(volumeMismatch(volume('v', '1Gi'), claim('1Gi'))).toBeUndefined();
  });
});

describe('volumeFitsNode', () => {
  it('matches expressions and metadata.name fields; an empty term matches nothing', () => {
    const byField = volume('v', '1Gi', {
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }],
        },
      },
    });
    expect(volumeFitsNode(byField, 'n1', {})).toBe(true);
    expect(volumeFitsNode(byField, 'n2', {})).toBe(false);
    const empty = volume('v', '1Gi', { nodeAffinity: { required: { nodeSelectorTerms: [{}] } } });
    expect(volumeFitsNode(empty, 'n1', {})).toBe(false);
    expect(volumeFitsNode(volume('v', '1Gi'), 'n1', {})).toBe(true);
  });
});
