// The PersistentVolume controller (pkg/controller/volume/persistentvolume, the "binder"): binds
// claims to the smallest fitting volume (or the one they or it name), keeps both phases, releases
// volumes whose claims are gone and reclaims them (Retain keeps them Released; Delete leaves a
// provisioned volume to its provisioner), and hands claims of a class to that class's provisioner
// with upstream's events. Claims and volumes each have their own queue; everything is resynced
// every 15 s (`--pvclaimbinder-sync-period`).
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  claimClass,
  claimReference,
  findMatchingVolume,
  isDelayBinding,
  isVolumeBoundToClaim,
  volumeMismatch,
  volumeModeMismatch,
} from '../../../api/storage/persistent-volumes.js';
import { claimNamesOfPod } from '../../../api/storage/pod-claims.js';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../../../api/types/core-v1.generated.js';
import type { StorageClass } from '../../../api/types/storage-v1.generated.js';
import { Controller, splitKey } from '../../../client/controller.js';
import type { EventRecorder, EventType } from '../../../client/events/index.js';
import { type Lister, objectOf, sleep } from '../../../client/informers/index.js';
import { PODS, PVCS, PVS, STORAGE_CLASSES } from '../../../client/resources.js';
import { isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../../context.js';

const SERVICE_ACCOUNT = 'persistent-volume-binder';
const RESYNC_MS = 15_000;

export class PersistentVolumeController implements RunnableController {
  readonly claimController: Controller;
  readonly volumeController: Controller;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly classes: Lister<StorageClass>;
  private readonly pods: Lister<Pod>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  /**
   * Volumes a claim worker is binding, until the cache shows their claimRef: the other workers
   * must not choose them meanwhile.
   */
  private readonly binding = new Set<string>();

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'persistentvolume-controller');
    const claims = context.informers.informerFor<PersistentVolumeClaim>(PVCS);
    const volumes = context.informers.informerFor<PersistentVolume>(PVS);
    const classes = context.informers.informerFor<StorageClass>(STORAGE_CLASSES);
    const pods = context.informers.informerFor<Pod>(PODS);
    this.claims = claims.lister;
    this.volumes = volumes.lister;
    this.classes = classes.lister;
    this.pods = pods.lister;
    this.claimController = new Controller({
      name: 'persistentvolume-claims',
      sync: (key) => this.syncClaim(key),
      // Upstream's single claim worker makes bulk binding wait on one claim's writes at a time.
      workers: 4,
      waitFor: [classes, pods],
    });
    this.volumeController = new Controller({
      name: 'persistentvolume-volumes',
      sync: (key) => this.syncVolume(key),
    });
    this.claimController.watch(claims);
    // A deleted claim releases its volume.
    claims.addEventHandler({
      onDelete: (claim) => {
        const object = objectOf(claim);
        for (const volume of this.volumes.list()) {
          if (isVolumeBoundToClaim(volume, object))
            this.volumeController.enqueueKey(volume.metadata?.name ?? '');
        }
      },
    });
    this.volumeController.watch(volumes);
    // A volume's change may complete or undo its claim's binding.
    volumes.addEventHandler({
      onAdd: (volume) => this.enqueueClaimOf(volume),
      onUpdate: (_old, volume) => {
        if (volume.spec?.claimRef?.uid) this.binding.delete(volume.metadata?.name ?? '');
        this.enqueueClaimOf(volume);
      },
    });
  }

  private enqueueClaimOf(volume: PersistentVolume): void {
    const ref = volume.spec?.claimRef;
    if (ref?.name) this.claimController.enqueueKey(`${ref.namespace ?? ''}/${ref.name}`);
  }

  async run(signal: AbortSignal): Promise<void> {
    const resync = async () => {
      while (!signal.aborted) {
        await sleep(RESYNC_MS, signal);
        for (const claim of this.claims.list())
          this.claimController.enqueueKey(`${claim.metadata?.namespace}/${claim.metadata?.name}`);
        for (const volume of this.volumes.list())
          this.volumeController.enqueueKey(volume.metadata?.name ?? '');
      }
    };
    await Promise.all([this.claimController.run(signal), this.volumeController.run(signal), resync()]);
  }

  // ---- claims ----

  async syncClaim(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const claim = this.claims.get(namespace, name);
    if (!claim) return;
    if (claim.metadata?.annotations?.[ANN_BIND_COMPLETED] === undefined) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
  }

  private async syncUnboundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (volumeName === '') {
      const delay = isDelayBinding(claim, (name) => this.classes.get('', name));
      const volume = findMatchingVolume(claim, this.volumes.list(), undefined, delay, this.binding);
      if (volume) {
        const name = volume.metadata?.name ?? '';
        // A volume pre-bound to this claim needs no reservation; any other must not be taken twice.
        const reserve = !isVolumeBoundToClaim(volume, claim);
        if (reserve) this.binding.add(name);
        try {
          await this.bind(volume, claim);
        } catch (error) {
          if (reserve) this.binding.delete(name);
          throw error;
        }
        return;
      }
      const className = claimClass(claim);
      if (delay && claim.metadata?.annotations?.[ANN_SELECTED_NODE] === undefined) {
        this.emitDelayBindingEvent(claim);
      } else if (className !== '') {
        await this.provisionClaim(claim, className);
        return;
      } else {
        this.event(
          claim,
          'Normal',
          'FailedBinding',
          'no persistent volumes available for this claim and no storage class is set',
        );
      }
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const volume = this.volumes.get('', volumeName);
    if (!volume) {
      // The user asked for a volume that does not exist (yet): retried at the next resync.
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    if (!volume.spec?.claimRef) {
      const mismatch = volumeMismatch(volume, claim);
      if (mismatch !== undefined) {
        this.event(
          claim,
          'Warning',
          'VolumeMismatch',
          `Cannot bind to requested volume "${volumeName}": ${mismatch}`,
        );
        await this.updateClaimStatus(claim, 'Pending', undefined);
        return;
      }
      await this.bind(volume, claim);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      await this.bind(volume, claim);
      return;
    }
    this.event(
      claim,
      'Warning',
      'FailedBinding',
      `volume "${volumeName}" already bound to a different claim.`,
    );
    if (claim.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] === undefined) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const ref = volume.spec.claimRef;
    throw new Error(
      `invalid binding of claim "${keyOfClaim(claim)}" to volume "${volumeName}": volume already claimed by "${ref.namespace}/${ref.name}"`,
    );
  }

  private async syncBoundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (volumeName === '') {
      await this.updateClaimStatusWithEvent(
        claim,
        'Lost',
        'ClaimLost',
        'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
      );
      return;
    }
    const volume = this.volumes.get('', volumeName);
    if (!volume) {
      await this.updateClaimStatusWithEvent(
        claim,
        'Lost',
        'ClaimLost',
        'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
      );
      return;
    }
    if (!volume.spec?.claimRef || volume.spec.claimRef.uid === claim.metadata?.uid) {
      await this.bind(volume, claim);
      return;
    }
    await this.updateClaimStatusWithEvent(
      claim,
      'Lost',
      'ClaimMisbound',
      'Two claims are bound to the same volume, this one is bound incorrectly',
    );
  }

  /** emitEventForUnboundDelayBindingClaim: waiting for a consumer, or for its pods' scheduling. */
  private emitDelayBindingEvent(claim: PersistentVolumeClaim): void {
    const waiting = this.pods
      .list(claim.metadata?.namespace ?? '')
      .filter((pod) => !pod.spec?.nodeName && claimNamesOfPod(pod).includes(claim.metadata?.name ?? ''))
      .map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`);
    if (waiting.length === 0) {
      this.event(
        claim,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
    } else if (waiting.length === 1) {
      this.event(claim, 'Normal', 'WaitForPodScheduled', `waiting for pod ${waiting[0]} to be scheduled`);
    } else {
      this.event(
        claim,
        'Normal',
        'WaitForPodScheduled',
        `waiting for pods ${waiting.join(',')} to be scheduled`,
      );
    }
  }

  /**
   * provisionClaim for a class served outside the binder (every class here: tkube's local-path
   * provisioner runs as an external provisioner does): the claim is annotated with the
   * provisioner's name and an ExternalProvisioning event says who is expected to act.
   */
  private async provisionClaim(claim: PersistentVolumeClaim, className: string): Promise<void> {
    const storageClass = this.classes.get('', className);
    if (!storageClass) {
      this.event(
        claim,
        'Warning',
        'ProvisioningFailed',
        `storageclass.storage.k8s.io "${className}" not found`,
      );
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const provisioner = storageClass.provisioner;
    const annotations = claim.metadata?.annotations ?? {};
    let current = claim;
    if (
      annotations[ANN_STORAGE_PROVISIONER] !== provisioner ||
      annotations[ANN_BETA_STORAGE_PROVISIONER] !== provisioner
    ) {
      const updated = structuredClone(claim);
      updated.metadata = {
        ...updated.metadata,
        annotations: {
          ...annotations,
          [ANN_STORAGE_PROVISIONER]: provisioner,
          [ANN_BETA_STORAGE_PROVISIONER]: provisioner,
        },
      };
      try {
        current = await this.client.resource<PersistentVolumeClaim>(PVCS).update(updated);
      } catch (error) {
        this.event(claim, 'Warning', 'ProvisioningFailed', `Error saving claim: ${String(error)}`);
        throw error;
      }
    }
    this.event(
      current,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    await this.updateClaimStatus(current, 'Pending', undefined);
  }

  // ---- binding ----

  /** bind: the volume's claimRef, its phase, the claim's volumeName and annotations, its status. */
  private async bind(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
    const boundVolume = await this.bindVolumeToClaim(volume, claim);
    const phased = await this.updateVolumePhase(boundVolume, 'Bound');
    const boundClaim = await this.bindClaimToVolume(claim, phased);
    await this.updateClaimStatus(boundClaim, 'Bound', phased);
  }

  private async bindVolumeToClaim(
    volume: PersistentVolume,
    claim: PersistentVolumeClaim,
  ): Promise<PersistentVolume> {
    const ref = volume.spec?.claimRef;
    const exact =
      ref?.uid === claim.metadata?.uid &&
      ref?.name === claim.metadata?.name &&
      ref?.namespace === claim.metadata?.namespace &&
      ref?.resourceVersion === claim.metadata?.resourceVersion;
    const setBoundByController = !isVolumeBoundToClaim(volume, claim);
    if (exact && !setBoundByController) return volume;
    const updated = structuredClone(volume);
    updated.spec = {
      ...updated.spec,
      claimRef: claimReference(claim),
    };
    if (setBoundByController) {
      updated.metadata = {
        ...updated.metadata,
        annotations: { ...updated.metadata?.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' },
      };
    }
    return this.client.resource<PersistentVolume>(PVS).update(updated);
  }

  private async bindClaimToVolume(
    claim: PersistentVolumeClaim,
    volume: PersistentVolume,
  ): Promise<PersistentVolumeClaim> {
    const annotations = claim.metadata?.annotations ?? {};
    const volumeName = volume.metadata?.name ?? '';
    const needsVolumeName = claim.spec?.volumeName !== volumeName;
    if (!needsVolumeName && annotations[ANN_BIND_COMPLETED] === 'yes') return claim;
    const updated = structuredClone(claim);
    const nextAnnotations: Record<string, string> = { ...annotations, [ANN_BIND_COMPLETED]: 'yes' };
    if (needsVolumeName) {
      // Set by the controller only when the user did not name the volume.
      if (!claim.spec?.volumeName) nextAnnotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      updated.spec = { ...updated.spec, volumeName };
    }
    updated.metadata = { ...updated.metadata, annotations: nextAnnotations };
    return this.client.resource<PersistentVolumeClaim>(PVCS).update(updated);
  }

  private async updateClaimStatus(
    claim: PersistentVolumeClaim,
    phase: 'Pending' | 'Bound' | 'Lost',
    volume: PersistentVolume | undefined,
  ): Promise<PersistentVolumeClaim> {
    const status = { ...claim.status };
    let dirty = false;
    if (status.phase !== phase) {
      status.phase = phase;
      dirty = true;
    }
    if (volume === undefined) {
      if (status.accessModes !== undefined || status.capacity !== undefined) {
        delete status.accessModes;
        delete status.capacity;
        dirty = true;
      }
    } else {
      if (JSON.stringify(status.accessModes) !== JSON.stringify(volume.spec?.accessModes)) {
        status.accessModes = volume.spec?.accessModes;
        dirty = true;
      }
      if (claim.status?.phase !== phase) {
        const capacity = volume.spec?.capacity?.storage;
        if (capacity === undefined)
          throw new Error(`PersistentVolume "${volume.metadata?.name}" is without a storage capacity`);
        if (status.capacity?.storage !== capacity) {
          status.capacity = { ...volume.spec?.capacity };
          dirty = true;
        }
      }
    }
    if (!dirty) return claim;
    return this.client.resource<PersistentVolumeClaim>(PVCS).updateStatus({ ...claim, status });
  }

  private async updateClaimStatusWithEvent(
    claim: PersistentVolumeClaim,
    phase: 'Lost',
    reason: string,
    message: string,
  ): Promise<void> {
    if (claim.status?.phase === phase) return;
    const updated = await this.updateClaimStatus(claim, phase, undefined);
    this.event(updated, 'Warning', reason, message);
  }

  // ---- volumes ----

  async syncVolume(name: string): Promise<void> {
    const volume = this.volumes.get('', name);
    if (!volume) return;
    const ref = volume.spec?.claimRef;
    if (!ref?.uid) {
      await this.updateVolumePhase(volume, 'Available');
      return;
    }
    let claim = this.claims.get(ref.namespace ?? '', ref.name ?? '');
    if (!claim && volume.status?.phase !== 'Released' && volume.status?.phase !== 'Failed') {
      // The claim may be too new for the cache: ask the server before releasing the volume.
      claim = await this.fetchClaim(ref.namespace ?? '', ref.name ?? '');
    }
    if (claim && claim.metadata?.uid !== ref.uid) {
      claim = await this.fetchClaim(ref.namespace ?? '', ref.name ?? '');
      if (claim?.metadata?.uid !== ref.uid) claim = undefined;
    }
    if (!claim) {
      const released =
        volume.status?.phase === 'Released' || volume.status?.phase === 'Failed'
          ? volume
          : await this.updateVolumePhase(volume, 'Released');
      await this.reclaimVolume(released);
      return;
    }
    const claimVolume = claim.spec?.volumeName ?? '';
    if (claimVolume === '') {
      if (volumeModeMismatch(claim, volume)) {
        this.event(
          volume,
          'Warning',
          'VolumeMismatch',
          `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata?.name}" due to incompatible volumeMode.`,
        );
        this.event(
          claim,
          'Warning',
          'VolumeMismatch',
          `Cannot bind PersistentVolume "${name}" to requested PersistentVolumeClaim due to incompatible volumeMode.`,
        );
        return;
      }
      this.claimController.enqueueKey(keyOfClaim(claim));
      return;
    }
    if (claimVolume === name) {
      await this.updateVolumePhase(volume, 'Bound');
      return;
    }
    // The claim is bound to another volume.
    const annotations = volume.metadata?.annotations ?? {};
    if (
      annotations[ANN_DYNAMICALLY_PROVISIONED] !== undefined &&
      volume.spec?.persistentVolumeReclaimPolicy === 'Delete'
    ) {
      const released =
        volume.status?.phase === 'Released' || volume.status?.phase === 'Failed'
          ? volume
          : await this.updateVolumePhase(volume, 'Released');
      await this.reclaimVolume(released);
      return;
    }
    await this.unbindVolume(volume);
  }

  private async fetchClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    try {
      return await this.client.resource<PersistentVolumeClaim>(PVCS).get(namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** unbindVolume: a controller-made binding is undone; a user's pre-binding keeps its claim name. */
  private async unbindVolume(volume: PersistentVolume): Promise<void> {
    const updated = structuredClone(volume);
    const annotations = { ...updated.metadata?.annotations };
    if (annotations[ANN_BOUND_BY_CONTROLLER] !== undefined) {
      delete updated.spec?.claimRef;
      delete annotations[ANN_BOUND_BY_CONTROLLER];
    } else if (updated.spec?.claimRef) {
      delete updated.spec.claimRef.uid;
      delete updated.spec.claimRef.resourceVersion;
    }
    updated.metadata = { ...updated.metadata, annotations };
    const saved = await this.client.resource<PersistentVolume>(PVS).update(updated);
    await this.updateVolumePhase(saved, 'Available');
  }

  /**
   * reclaimVolume: Retain keeps the Released volume; Delete of a provisioned volume is its
   * provisioner's work; the binder has no plugin to delete or recycle anything else, so those
   * volumes fail with upstream's events.
   */
  private async reclaimVolume(volume: PersistentVolume): Promise<void> {
    const name = volume.metadata?.name ?? '';
    switch (volume.spec?.persistentVolumeReclaimPolicy ?? 'Retain') {
      case 'Retain':
        return;
      case 'Delete':
        if (volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== undefined) return;
        if (volume.metadata?.deletionTimestamp) return;
        await this.updateVolumePhaseWithEvent(
          volume,
          'Failed',
          'VolumeFailedDelete',
          `error getting deleter volume plugin for volume "${name}": no deletable volume plugin matched`,
        );
        return;
      case 'Recycle':
        await this.updateVolumePhaseWithEvent(
          volume,
          'Failed',
          'VolumeFailedRecycle',
          'No recycler plugin found for the volume!',
        );
        return;
      default:
        await this.updateVolumePhaseWithEvent(
          volume,
          'Failed',
          'VolumeUnknownReclaimPolicy',
          'Volume has unrecognized PersistentVolumeReclaimPolicy',
        );
    }
  }

  private async updateVolumePhase(
    volume: PersistentVolume,
    phase: 'Available' | 'Bound' | 'Released' | 'Failed',
    message?: string,
  ): Promise<PersistentVolume> {
    if (volume.status?.phase === phase) return volume;
    const status = {
      ...volume.status,
      phase,
      lastPhaseTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    if (message !== undefined) status.message = message;
    else delete status.message;
    return this.client.resource<PersistentVolume>(PVS).updateStatus({ ...volume, status });
  }

  private async updateVolumePhaseWithEvent(
    volume: PersistentVolume,
    phase: 'Failed',
    reason: string,
    message: string,
  ): Promise<void> {
    if (volume.status?.phase === phase) return;
    const updated = await this.updateVolumePhase(volume, phase, message);
    this.event(updated, 'Warning', reason, message);
  }

  private event(
    object: PersistentVolume | PersistentVolumeClaim,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    // Informer items may come without kind (list items do): the reference needs it.
    const kind = object.metadata?.namespace ? 'PersistentVolumeClaim' : 'PersistentVolume';
    this.recorder.event({ ...object, apiVersion: 'v1', kind }, type, reason, message);
  }
}

function keyOfClaim(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`;
}

export const persistentVolumeBinderController: ControllerDescriptor = {
  name: 'persistentvolume-binder-controller',
  create: (context) => new PersistentVolumeController(context),
};
