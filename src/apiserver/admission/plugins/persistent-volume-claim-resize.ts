// The PersistentVolumeClaimResize admission plugin
// (plugin/pkg/admission/storage/persistentvolume/resize): a claim may ask for more storage only
// once it is bound, and only when its class (the same before and after) allows volume expansion.
// Shrinking is the claim's validation's business (spec.resources.requests.storage).
import { Quantity } from '../../../api/quantity.js';
import { claimClass } from '../../../api/storage/persistent-volumes.js';
import type { PersistentVolumeClaim } from '../../../api/types/core-v1.generated.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';

const CLAIMS = { group: '', resource: 'persistentvolumeclaims' };
const NOT_BOUND = 'Only bound persistent volume claims can be expanded';
const NOT_EXPANDABLE =
  'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';

/** The claim's requested storage; an absent size is Go's zero quantity. */
function requestedStorage(claim: PersistentVolumeClaim): Quantity {
  return Quantity.tryFromJson(claim.spec?.resources?.requests?.storage) ?? Quantity.fromInteger(0);
}

export function persistentVolumeClaimResizeAdmission(storageClasses: ObjectLister): AdmissionPlugin {
  /** allowResize: both versions name the same class, and that class sets allowVolumeExpansion. */
  const allowResize = async (claim: PersistentVolumeClaim, old: PersistentVolumeClaim) => {
    const name = claimClass(claim);
    if (name === '' || name !== claimClass(old)) return false;
    const storageClass = (await storageClasses.find('', name)) as
      | { allowVolumeExpansion?: boolean }
      | undefined;
    return storageClass?.allowVolumeExpansion === true;
  };

  const check = async (
    attributes: AdmissionAttributes,
    claim: PersistentVolumeClaim,
    old: PersistentVolumeClaim,
  ) => {
    if (!(await allowResize(claim, old))) throw forbidden(CLAIMS, attributes.name, NOT_EXPANDABLE);
  };

  return {
    name: 'PersistentVolumeClaimResize',
    validate(attributes: AdmissionAttributes) {
      if (attributes.resource.group !== '' || attributes.resource.resource !== 'persistentvolumeclaims')
        return;
      if (attributes.subresource !== '' || attributes.oldObject === undefined) return;
      const claim = attributes.object as PersistentVolumeClaim;
      const old = attributes.oldObject as PersistentVolumeClaim;
      if (requestedStorage(claim).cmp(requestedStorage(old)) <= 0) return;
      if (old.status?.phase !== 'Bound') throw forbidden(CLAIMS, attributes.name, NOT_BOUND);
      return check(attributes, claim, old);
    },
  };
}
