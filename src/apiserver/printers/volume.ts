// PersistentVolume and PersistentVolumeClaim printers.
import type { KubeObject } from '../../api/object.js';
import { at, list, optStr, str, stringMap } from './access.js';
import { AGE, column, fieldColumn, NAME, wideFieldColumn } from './columns.js';
import { ageOf, isDeleting, nameOf } from './meta.js';
import { canonicalQuantity } from './quantity.js';
import type { KindPrinter } from './types.js';

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModes(modes: unknown[]): string {
  const abbreviations: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return abbreviations
    .filter(([mode]) => modes.includes(mode))
    .map(([, short]) => short)
    .join(',');
}

/** The beta storage-class annotation wins over spec.storageClassName, for volumes and claims alike. */
function storageClassOf(object: KubeObject): string {
  const annotations = stringMap(object, 'metadata', 'annotations');
  if (Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION))
    return annotations[BETA_STORAGE_CLASS_ANNOTATION]!;
  return str(object, 'spec', 'storageClassName');
}

export const persistentVolumes: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Capacity', 'string', 'core/v1.PersistentVolumeSpec.capacity'),
    fieldColumn('Access Modes', 'string', 'core/v1.PersistentVolumeSpec.accessModes'),
    fieldColumn('Reclaim Policy', 'string', 'core/v1.PersistentVolumeSpec.persistentVolumeReclaimPolicy'),
    fieldColumn('Status', 'string', 'core/v1.PersistentVolumeStatus.phase'),
    fieldColumn('Claim', 'string', 'core/v1.PersistentVolumeSpec.claimRef'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    fieldColumn('Reason', 'string', 'core/v1.PersistentVolumeStatus.reason'),
    AGE,
    wideFieldColumn('VolumeMode', 'string', 'core/v1.PersistentVolumeSpec.volumeMode'),
  ],
  row(pv, now) {
    const claimRef = at(pv, 'spec', 'claimRef');
    return [
      nameOf(pv),
      canonicalQuantity(at(pv, 'spec', 'capacity', 'storage')),
      accessModes(list(pv, 'spec', 'accessModes')),
      str(pv, 'spec', 'persistentVolumeReclaimPolicy'),
      isDeleting(pv) ? 'Terminating' : str(pv, 'status', 'phase'),
      claimRef === undefined ? '' : `${str(claimRef, 'namespace')}/${str(claimRef, 'name')}`,
      storageClassOf(pv),
      optStr(pv, 'spec', 'volumeAttributesClassName') ?? '<unset>',
      str(pv, 'status', 'reason'),
      ageOf(pv, now),
      optStr(pv, 'spec', 'volumeMode') ?? '<unset>',
    ];
  },
};

export const persistentVolumeClaims: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Status', 'string', 'core/v1.PersistentVolumeClaimStatus.phase'),
    fieldColumn('Volume', 'string', 'core/v1.PersistentVolumeClaimSpec.volumeName'),
    fieldColumn('Capacity', 'string', 'core/v1.PersistentVolumeClaimStatus.capacity'),
    fieldColumn('Access Modes', 'string', 'core/v1.PersistentVolumeClaimStatus.accessModes'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE,
    wideFieldColumn('VolumeMode', 'string', 'core/v1.PersistentVolumeClaimSpec.volumeMode'),
  ],
  row(pvc, now) {
    const volumeName = str(pvc, 'spec', 'volumeName');
    // Capacity and access modes are only shown once the claim names its volume.
    const bound = volumeName !== '';
    return [
      nameOf(pvc),
      isDeleting(pvc) ? 'Terminating' : str(pvc, 'status', 'phase'),
      volumeName,
      bound ? canonicalQuantity(at(pvc, 'status', 'capacity', 'storage')) : '',
      bound ? accessModes(list(pvc, 'status', 'accessModes')) : '',
      storageClassOf(pvc),
      optStr(pvc, 'spec', 'volumeAttributesClassName') ?? '<unset>',
      ageOf(pvc, now),
      optStr(pvc, 'spec', 'volumeMode') ?? '<unset>',
    ];
  },
};
