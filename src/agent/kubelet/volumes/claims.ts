// persistentVolumeClaim and generic ephemeral volumes (the kubelet's desired-state populator and
// the hostPath / local volume plugins): the claim must be bound, its volume bound back to it; a
// hostPath volume passes its type check (a local-path volume's directory is created open to
// every user, as local-path-provisioner's helper creates it), a local volume's path must exist
// and takes the pod's fsGroup. The messages are the kubelet's.
import { chmod, lstat, mkdir, stat } from 'node:fs/promises';
import { LOCAL_PATH_PROVISIONER } from '../../../api/storage/local-path.js';
import { ANN_DYNAMICALLY_PROVISIONED } from '../../../api/storage/persistent-volumes.js';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  Volume,
} from '../../../api/types/core-v1.generated.js';
import { PVCS, PVS } from '../../../client/resources.js';
import type { Client } from '../../../client/types.js';
import { errorText, mountFailure } from './errors.js';
import { checkHostPathType } from './host-path.js';
import { setVolumeOwnership } from './ownership.js';

/** A claim the populator could not process: the volume is reported among "failed to process volumes". */
export class ClaimProcessingError extends Error {
  override readonly name = 'ClaimProcessingError';
  constructor(
    readonly volumeName: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClaimVolume {
  readonly path: string;
  readonly readOnly: boolean;
}

/** The claim a volume refers to: its own, or `<pod>-<volume>` for a generic ephemeral volume. */
export function claimNameOf(pod: Pod, volume: Volume): string | undefined {
  if (volume.persistentVolumeClaim) return volume.persistentVolumeClaim.claimName;
  if (volume.ephemeral) return `${pod.metadata?.name ?? ''}-${volume.name}`;
  return undefined;
}

export async function setUpClaimVolume(client: Client, pod: Pod, volume: Volume): Promise<ClaimVolume> {
  const namespace = pod.metadata?.namespace ?? '';
  const claimName = claimNameOf(pod, volume) ?? '';
  const fail = (cause: string) =>
    new ClaimProcessingError(volume.name, `error processing PVC ${namespace}/${claimName}: ${cause}`);
  let claim: PersistentVolumeClaim;
  try {
    claim = await client.resource<PersistentVolumeClaim>(PVCS).get(namespace, claimName);
  } catch (error) {
    throw fail(`failed to fetch PVC from API server: ${errorText(error)}`);
  }
  if (claim.metadata?.deletionTimestamp) throw fail('PVC is being deleted');
  if (claim.status?.phase !== 'Bound') throw fail('PVC is not bound');
  const volumeName = claim.spec?.volumeName ?? '';
  if (volumeName === '') throw fail('PVC has empty pvc.Spec.VolumeName');
  if (volume.ephemeral && !ownedByPod(claim, pod)) {
    throw new ClaimProcessingError(
      volume.name,
      `PVC ${namespace}/${claimName} was not created for pod ${namespace}/${pod.metadata?.name} (pod is not owner)`,
    );
  }
  let persistentVolume: PersistentVolume;
  try {
    persistentVolume = await client.resource<PersistentVolume>(PVS).get('', volumeName);
  } catch (error) {
    throw fail(`failed to fetch PV ${volumeName} from API server: ${errorText(error)}`);
  }
  const ref = persistentVolume.spec?.claimRef;
  if (!ref)
    throw fail(
      `found PV object ${volumeName} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`,
    );
  if (ref.uid !== claim.metadata?.uid)
    throw fail(
      `found PV object ${volumeName} but its pv.Spec.ClaimRef.UID ${ref.uid ?? ''} does not point to claim.UID ${claim.metadata?.uid ?? ''}`,
    );
  const readOnly = volume.persistentVolumeClaim?.readOnly === true;
  const spec = persistentVolume.spec ?? {};
  if (spec.hostPath) {
    const path = spec.hostPath.path;
    try {
      if (persistentVolume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] === LOCAL_PATH_PROVISIONER)
        await makeLocalPathDirectory(path);
      await checkHostPathType(path, spec.hostPath.type);
    } catch (error) {
      throw mountFailure(volume.name, errorText(error));
    }
    return { path, readOnly };
  }
  if (spec.local) {
    const path = spec.local.path;
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (!exists)
      throw new ClaimProcessingError(
        volume.name,
        `MountVolume.NewMounter initialization failed for volume "${volumeName}" : path "${path}" does not exist`,
      );
    await applyFsGroup(pod, path, readOnly);
    return { path, readOnly };
  }
  const kind = Object.keys(spec).find((key) => !NON_SOURCE_FIELDS.has(key)) ?? 'unknown';
  throw mountFailure(volume.name, `persistent volume type ${kind} is not supported by this kubelet`);
}

const NON_SOURCE_FIELDS = new Set([
  'accessModes',
  'capacity',
  'claimRef',
  'mountOptions',
  'nodeAffinity',
  'persistentVolumeReclaimPolicy',
  'storageClassName',
  'volumeAttributesClassName',
  'volumeMode',
]);

/** local-path-provisioner creates each volume's directory with mode 0777: any pod user may write. */
async function makeLocalPathDirectory(path: string): Promise<void> {
  const exists = await lstat(path).then(
    () => true,
    () => false,
  );
  if (exists) return;
  await mkdir(path, { recursive: true });
  await chmod(path, 0o777);
}

/** fsGroup on a local volume; with fsGroupChangePolicy OnRootMismatch only when the root is not already set. */
async function applyFsGroup(pod: Pod, path: string, readOnly: boolean): Promise<void> {
  const context = pod.spec?.securityContext;
  const fsGroup = context?.fsGroup;
  if (fsGroup === undefined) return;
  if (context?.fsGroupChangePolicy === 'OnRootMismatch') {
    const info = await stat(path);
    const setgid = (info.mode & 0o2000) !== 0;
    if (info.gid === fsGroup && setgid) return;
  }
  await setVolumeOwnership(path, fsGroup, readOnly);
}

function ownedByPod(claim: PersistentVolumeClaim, pod: Pod): boolean {
  return (claim.metadata?.ownerReferences ?? []).some(
    (owner) => owner.controller === true && owner.uid === pod.metadata?.uid,
  );
}
