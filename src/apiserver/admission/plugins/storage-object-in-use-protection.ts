// StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection): every
// new PersistentVolume gets the kubernetes.io/pv-protection finalizer and every new
// PersistentVolumeClaim kubernetes.io/pvc-protection, so neither disappears while in use; the
// protection controllers remove them once it is safe.
import {
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_FINALIZER,
} from '../../../api/storage/persistent-volumes.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

const FINALIZERS: Readonly<Record<string, string>> = {
  persistentvolumes: PV_PROTECTION_FINALIZER,
  persistentvolumeclaims: PVC_PROTECTION_FINALIZER,
};

export const storageObjectInUseProtectionAdmission: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  admit(attributes: AdmissionAttributes) {
    if (attributes.operation !== 'CREATE' || attributes.subresource !== '') return;
    if (attributes.resource.group !== '') return;
    const finalizer = FINALIZERS[attributes.resource.resource];
    if (finalizer === undefined) return;
    const metadata = attributes.object.metadata ?? {};
    const finalizers = metadata.finalizers ?? [];
    if (finalizers.includes(finalizer)) return;
    attributes.object.metadata = { ...metadata, finalizers: [...finalizers, finalizer] };
  },
};
