// PersistentVolumeClaimResize: growing a claim needs it bound and its (unchanged) class to allow
// expansion; keeping or lowering the request and status writes pass; upstream's texts. (Through
// the API an unbound claim's request change is refused first by validation: see
// test/integration/storage/persistent-volumes.test.ts.)
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { findResource } from '../../../src/api/resources/lookup.js';
import type { PersistentVolumeClaim } from '../../../src/api/types/core-v1.generated.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/chain.js';
import type { ObjectLister } from '../../../src/apiserver/admission/object-cache.js';
import { persistentVolumeClaimResizeAdmission } from '../../../src/apiserver/admission/plugins/persistent-volume-claim-resize.js';
import { StatusError } from '../../../src/apiserver/status.js';

const classes: Record<string, KubeObject> = {
  expandable: { metadata: { name: 'expandable' }, allowVolumeExpansion: true } as KubeObject,
  fixed: { metadata: { name: 'fixed' }, allowVolumeExpansion: false } as KubeObject,
  unset: { metadata: { name: 'unset' } },
};
const lister: ObjectLister = {
  find: async (_namespace, name) => classes[name],
  list: async () => ({ items: Object.values(classes).map((item) => JSON.stringify(item)) }),
};
const plugin = persistentVolumeClaimResizeAdmission(lister);

function claim(size: string, className: string | undefined, phase = 'Bound'): PersistentVolumeClaim {
  return {
    metadata: { namespace: 'default', name: 'data' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(className !== undefined && { storageClassName: className }),
    },
    status: { phase },
  };
}

async function outcome(next: PersistentVolumeClaim, old: PersistentVolumeClaim, subresource = '') {
  const attributes: AdmissionAttributes = {
    operation: 'UPDATE',
    resource: findResource('', 'v1', 'persistentvolumeclaims')!,
    subresource,
    namespace: 'default',
    name: 'data',
    object: next as KubeObject,
    oldObject: old as KubeObject,
    dryRun: false,
    warnings: [],
  };
  try {
    await plugin.validate!(attributes);
    return 'allowed';
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(403);
    return (error as StatusError).message;
  }
}

const NOT_EXPANDABLE =
  'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';

describe('PersistentVolumeClaimResize', () => {
  it('lets a bound claim of an expandable class grow', async () => {
    expect(await outcome(claim('2Gi', 'expandable'), claim('1Gi', 'expandable'))).toBe('allowed');
  });

  it('passes writes that do not grow the request, and status writes', async () => {
    expect(await outcome(claim('1Gi', 'fixed'), claim('1Gi', 'fixed'))).toBe('allowed');
    expect(await outcome(claim('1Gi', 'fixed'), claim('2Gi', 'fixed'))).toBe('allowed');
    expect(await outcome(claim('2Gi', 'fixed'), claim('1Gi', 'fixed'), 'status')).toBe('allowed');
  });

  it('refuses to grow a claim that is not bound', async () => {
    expect(await outcome(claim('2Gi', 'expandable', 'Pending'), claim('1Gi', 'expandable', 'Pending'))).toBe(
      'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded',
    );
  });

  it('refuses to grow a claim without a class, of a missing class, or of a class that does not expand', async () => {
    expect(await outcome(claim('2Gi', ''), claim('1Gi', ''))).toBe(NOT_EXPANDABLE);
    expect(await outcome(claim('2Gi', undefined), claim('1Gi', undefined))).toBe(NOT_EXPANDABLE);
    expect(await outcome(claim('2Gi', 'gone'), claim('1Gi', 'gone'))).toBe(NOT_EXPANDABLE);
    expect(await outcome(claim('2Gi', 'fixed'), claim('1Gi', 'fixed'))).toBe(NOT_EXPANDABLE);
    expect(await outcome(claim('2Gi', 'unset'), claim('1Gi', 'unset'))).toBe(NOT_EXPANDABLE);
    expect(await outcome(claim('2Gi', 'expandable'), claim('1Gi', 'fixed'))).toBe(NOT_EXPANDABLE);
  });
});
