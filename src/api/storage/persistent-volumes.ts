// The PV/PVC facts the binder, the scheduler's VolumeBinding plugin and the provisioner share
// (component-helpers/storage/volume: pv_helpers.go, helpers.go): annotations, a claim's and a
// volume's class, access-mode and volume-mode checks, a volume's node affinity, and
// FindMatchingVolume — the smallest fitting volume for a claim.
import { Quantity } from '../quantity.js';
import { ParsedNodeSelector } from '../scheduling/node-selector.js';
import { type Labels, labelSelectorFromObject } from '../selectors/index.js';
import type { ObjectReference, PersistentVolume, PersistentVolumeClaim } from '../types/core-v1.generated.js';
import type { StorageClass } from '../types/storage-v1.generated.js';

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** The deprecated class annotation, still honoured before spec.storageClassName. */
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/** GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName. */
export function claimClass(claim: PersistentVolumeClaim): string {
  const annotated = claim.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS];
  if (annotated !== undefined) return annotated;
  return claim.spec?.storageClassName ?? '';
}

/** GetPersistentVolumeClass. */
export function volumeClass(volume: PersistentVolume): string {
  const annotated = volume.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS];
  if (annotated !== undefined) return annotated;
  return volume.spec?.storageClassName ?? '';
}

/** The claim's storage request in bytes (0 without one). */
export function requestedBytes(claim: PersistentVolumeClaim): bigint {
  return quantityBytes(claim.spec?.resources?.requests?.storage);
}

/** The volume's storage capacity in bytes (0 without one). */
export function capacityBytes(volume: PersistentVolume): bigint {
  return quantityBytes(volume.spec?.capacity?.storage);
}

function quantityBytes(text: string | undefined): bigint {
  if (text === undefined) return 0n;
  return Quantity.tryFromJson(text)?.value() ?? 0n;
}

/** CheckAccessModes: the volume offers every mode the claim asks for. */
export function accessModesFit(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const offered = new Set(volume.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((mode) => offered.has(mode));
}

/** CheckVolumeModeMismatches (Filesystem when unset). */
export function volumeModeMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode ?? 'Filesystem') !== (volume.spec?.volumeMode ?? 'Filesystem');
}

/** The claimRef of a volume bound to the claim (GetBindVolumeToClaim's reference). */
export function claimReference(claim: PersistentVolumeClaim): ObjectReference {
  return {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace: claim.metadata?.namespace,
    name: claim.metadata?.name,
    uid: claim.metadata?.uid,
    resourceVersion: claim.metadata?.resourceVersion,
  };
}

/** IsVolumeBoundToClaim: the volume's claimRef names the claim (and its UID, when set). */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata?.name || ref.namespace !== claim.metadata?.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

/** The class's binding mode is WaitForFirstConsumer (IsDelayBindingMode; a missing class binds at once). */
export function isDelayBinding(
  claim: PersistentVolumeClaim,
  classes: (name: string) => StorageClass | undefined,
) {
  const name = claimClass(claim);
  if (name === '') return false;
  return classes(name)?.volumeBindingMode === 'WaitForFirstConsumer';
}

/**
 * CheckNodeAffinity: a volume without required node affinity fits every node; otherwise one of
 * its terms must match the node's labels (and `metadata.name` fields the node's name).
 */
export function volumeFitsNode(volume: PersistentVolume, nodeName: string, labels: Labels): boolean {
  const required = volume.spec?.nodeAffinity?.required;
  if (!required?.nodeSelectorTerms) return true;
  return new ParsedNodeSelector(required).matches(labels ?? {}, nodeName);
}

/** checkVolumeSatisfyClaim's reasons (pv_controller.go), or undefined when the volume satisfies the claim. */
export function volumeMismatch(volume: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (volume.metadata?.deletionTimestamp)
    return `the volume is marked for deletion "${volume.metadata.name}"`;
  if (capacityBytes(volume) < requestedBytes(claim)) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeMismatch(claim, volume)) return 'incompatible volumeMode';
  if (!accessModesFit(claim, volume)) return 'incompatible accessMode';
  return undefined;
}

export interface MatchNode {
  readonly name: string;
  readonly labels: Labels;
}

/**
 * FindMatchingVolume: a volume already pre-bound to the claim wins; otherwise the smallest
 * Available volume of the claim's class, size, modes and selector (and, given a node, fitting
 * it). With delayed binding and no node, only pre-bound volumes count. Volumes offering fewer
 * access modes are preferred among equals, as the binder's index walks them first.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: Iterable<PersistentVolume>,
  node: MatchNode | undefined,
  delayBinding: boolean,
  excluded?: ReadonlySet<string>,
): PersistentVolume | undefined {
  const requested = requestedBytes(claim);
  const requestedClass = claimClass(claim);
  const selector = claim.spec?.selector ? labelSelectorFromObject(claim.spec.selector) : undefined;
  let smallest: PersistentVolume | undefined;
  let smallestBytes = 0n;
  for (const volume of volumes) {
    if (excluded?.has(volume.metadata?.name ?? '')) continue;
    if (volume.spec?.claimRef && !isVolumeBoundToClaim(volume, claim)) continue;
    const bytes = capacityBytes(volume);
    if (bytes < requested) continue;
    if (volumeModeMismatch(claim, volume)) continue;
    if (volume.metadata?.deletionTimestamp) continue;
    const fitsNode = node === undefined || volumeFitsNode(volume, node.name, node.labels);
    if (isVolumeBoundToClaim(volume, claim)) return fitsNode ? volume : undefined;
    if (node === undefined && delayBinding) continue;
    if (volume.status?.phase !== 'Available') continue;
    if (selector && !selector.matches(volume.metadata?.labels ?? {})) continue;
    if (volumeClass(volume) !== requestedClass) continue;
    if (!fitsNode) continue;
    if (!accessModesFit(claim, volume)) continue;
    const better =
      smallest === undefined ||
      bytes < smallestBytes ||
      (bytes === smallestBytes &&
        (volume.spec?.accessModes?.length ?? 0) < (smallest.spec?.accessModes?.length ?? 0));
    if (better) {
      smallest = volume;
      smallestBytes = bytes;
    }
  }
  return smallest;
}
