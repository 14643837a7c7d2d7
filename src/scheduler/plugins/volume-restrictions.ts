// VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions): a claim with the
// ReadWriteOncePod access mode serves one pod in the whole cluster, so a second pod using it fits
// no node while the first is scheduled; and the disk volumes that cannot be shared (GCE PD, AWS
// EBS, iSCSI, RBD — accepted by the API though tkube's kubelet mounts none of them) keep two pods
// naming the same disk off one node. Preemption sees the conflict go when it removes the pod
// holding the claim.
import type { Pod, Volume } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { ClusterObjects } from '../cluster-objects.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import { ActionType } from '../framework/events.js';
import type { FrameworkHandle } from '../framework/handle.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreFilterExtensions,
  PreFilterPlugin,
  PreFilterResult,
} from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';

export const ERR_REASON_DISK_CONFLICT = 'node(s) had no available disk';
export const ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT =
  'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';
const STATE_KEY = `PreFilter${PluginNames.VolumeRestrictions}`;

class VolumeRestrictionsState implements StateData {
  constructor(
    /** The pod's claims (by name, in its namespace) with the ReadWriteOncePod access mode. */
    readonly readWriteOncePodClaims: ReadonlySet<string>,
    /** How many of those claims pods already scheduled use. */
    public conflictingClaimRefCount: number,
  ) {}

  clone(): StateData {
    return new VolumeRestrictionsState(this.readWriteOncePodClaims, this.conflictingClaimRefCount);
  }

  /** Counts the claims of `pod` (in the scheduled pod's namespace) that conflict, times `sign`. */
  updateWithPod(podInfo: PodInfo, namespace: string, sign: 1 | -1): void {
    if (podInfo.namespace !== namespace) return;
    for (const volume of podInfo.pod.spec?.volumes ?? []) {
      const name = volume.persistentVolumeClaim?.claimName;
      if (name !== undefined && this.readWriteOncePodClaims.has(name)) this.conflictingClaimRefCount += sign;
    }
  }
}

/** Volumes whose disk two pods on one node may not share. */
function needsRestrictionsCheck(volume: Volume): boolean {
  return Boolean(volume.gcePersistentDisk || volume.awsElasticBlockStore || volume.rbd || volume.iscsi);
}

function haveOverlap(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return b.some((value) => set.has(value));
}

/** isVolumeConflict: the volume names a disk the existing pod mounts, and not both read-only. */
function isVolumeConflict(volume: Volume, existingPod: Pod): boolean {
  for (const existing of existingPod.spec?.volumes ?? []) {
    const disk = volume.gcePersistentDisk;
    const existingDisk = existing.gcePersistentDisk;
    if (
      disk &&
      existingDisk &&
      disk.pdName === existingDisk.pdName &&
      !(disk.readOnly && existingDisk.readOnly)
    )
      return true;
    const ebs = volume.awsElasticBlockStore;
    if (ebs && existing.awsElasticBlockStore && ebs.volumeID === existing.awsElasticBlockStore.volumeID)
      return true;
    const iscsi = volume.iscsi;
    if (
      iscsi &&
      existing.iscsi &&
      iscsi.iqn === existing.iscsi.iqn &&
      !(iscsi.readOnly && existing.iscsi.readOnly)
    )
      return true;
    const rbd = volume.rbd;
    const existingRbd = existing.rbd;
    if (
      rbd &&
      existingRbd &&
      haveOverlap(rbd.monitors, existingRbd.monitors) &&
      (rbd.pool ?? '') === (existingRbd.pool ?? '') &&
      rbd.image === existingRbd.image &&
      !(rbd.readOnly && existingRbd.readOnly)
    )
      return true;
  }
  return false;
}

export class VolumeRestrictions implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = PluginNames.VolumeRestrictions;
  private readonly objects: ClusterObjects;

  constructor(private readonly handle: FrameworkHandle) {
    this.objects = handle.objects;
  }

  preFilter(state: CycleState, podInfo: PodInfo): PreFilterResult | null {
    const volumes = podInfo.pod.spec?.volumes ?? [];
    const needsCheck = volumes.some(needsRestrictionsCheck);
    const claims = new Set<string>();
    for (const volume of volumes) {
      const name = volume.persistentVolumeClaim?.claimName;
      if (name === undefined) continue;
      const claim = this.objects.persistentVolumeClaims.get(podInfo.namespace, name);
      if (!claim) return { status: Status.unresolvable(`persistentvolumeclaim "${name}" not found`) };
      if (claim.spec?.accessModes?.includes('ReadWriteOncePod')) claims.add(name);
    }
    const used = claims.size === 0 ? new Set<string>() : this.claimsUsedByPods(podInfo.namespace, claims);
    const data = new VolumeRestrictionsState(claims, used.size);
    if (!needsCheck && data.conflictingClaimRefCount === 0) return { status: Status.skip() };
    state.write(STATE_KEY, data);
    return null;
  }

  /** IsPVCUsedByPods for each claim: the ones a pod on some node already uses. */
  private claimsUsedByPods(namespace: string, claims: ReadonlySet<string>): Set<string> {
    const used = new Set<string>();
    for (const nodeInfo of this.handle.snapshot().nodeInfoList) {
      for (const podInfo of nodeInfo.pods) {
        if (podInfo.namespace !== namespace) continue;
        for (const volume of podInfo.pod.spec?.volumes ?? []) {
          const name = volume.persistentVolumeClaim?.claimName;
          if (name !== undefined && claims.has(name)) used.add(name);
        }
      }
    }
    return used;
  }

  readonly preFilterExtensions: PreFilterExtensions = {
    addPod: (state, podToSchedule, podInfoToAdd) => {
      state
        .require<VolumeRestrictionsState>(STATE_KEY)
        .updateWithPod(podInfoToAdd, podToSchedule.namespace, 1);
      return null;
    },
    removePod: (state, podToSchedule, podInfoToRemove) => {
      state
        .require<VolumeRestrictionsState>(STATE_KEY)
        .updateWithPod(podInfoToRemove, podToSchedule.namespace, -1);
      return null;
    },
  };

  filter(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    for (const volume of podInfo.pod.spec?.volumes ?? []) {
      if (!needsRestrictionsCheck(volume)) continue;
      if (nodeInfo.pods.some((existing) => isVolumeConflict(volume, existing.pod)))
        return Status.unschedulable(ERR_REASON_DISK_CONFLICT);
    }
    const data = state.require<VolumeRestrictionsState>(STATE_KEY);
    if (data.conflictingClaimRefCount > 0)
      return Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'Pod', actionType: ActionType.Delete } },
      { event: { resource: 'Node', actionType: ActionType.Add } },
      { event: { resource: 'PersistentVolumeClaim', actionType: ActionType.Add | ActionType.UpdateOther } },
    ];
  }
}
