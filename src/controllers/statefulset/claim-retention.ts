// persistentVolumeClaimRetentionPolicy (stateful_set_utils.go: updateClaimOwnerRefs): which owner
// references a StatefulSet's claim should carry. whenDeleted: Delete makes the set an owner, so
// the garbage collector deletes the claim with it; whenScaled: Delete makes the pod an owner once
// its ordinal is condemned, so the claim goes with the pod. Retain removes those references.
import type { StatefulSet } from '../../api/types/apps-v1.generated.js';
import type { PersistentVolumeClaim, Pod } from '../../api/types/core-v1.generated.js';
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';

function reference(apiVersion: string, kind: string, object: StatefulSet | Pod): OwnerReference {
  return {
    apiVersion,
    kind,
    name: object.metadata?.name ?? '',
    uid: object.metadata?.uid ?? '',
    blockOwnerDeletion: true,
  };
}

/** The claim's owner references as the policy wants them, or undefined when they already are. */
export function claimOwnersFor(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
  condemned: boolean,
): OwnerReference[] | undefined {
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy;
  const setUid = set.metadata?.uid;
  const podUid = pod.metadata?.uid;
  const existing = claim.metadata?.ownerReferences ?? [];
  // References to other objects are not the policy's business.
  const others = existing.filter((ref) => ref.uid !== setUid && ref.uid !== podUid);
  const wanted = [...others];
  if (policy?.whenDeleted === 'Delete' && setUid) wanted.push(reference('apps/v1', 'StatefulSet', set));
  if (policy?.whenScaled === 'Delete' && condemned && podUid) wanted.push(reference('v1', 'Pod', pod));
  const uids = (refs: readonly OwnerReference[]) =>
    refs
      .map((ref) => ref.uid)
      .sort()
      .join(',');
  return uids(existing) === uids(wanted) ? undefined : wanted;
}
