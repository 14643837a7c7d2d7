// The control-plane half of tkube's `tkube.dev/local-path` provisioner, acting as an external
// provisioner and resizer do (sig-storage-lib-external-provisioner, external-resizer): a claim the
// binder handed to it gets a PersistentVolume `pvc-<claim uid>` — a hostPath directory under
// /var/lib/tkube/local-path on the node the scheduler selected (WaitForFirstConsumer) or on the
// least loaded schedulable node (Immediate), pinned there by node affinity and pre-bound to the
// claim; a Released volume with reclaim Delete is deleted (its node's agent then removes the
// directory); a bound claim asking for more grows its volume and its status.capacity, when its
// class allows expansion.
import { LABEL_HOSTNAME, LOCAL_PATH_PROVISIONER, localPathOf } from '../../../api/storage/local-path.js';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  capacityBytes,
  claimClass,
  claimReference,
  requestedBytes,
} from '../../../api/storage/persistent-volumes.js';
import type { Node, PersistentVolume, PersistentVolumeClaim } from '../../../api/types/core-v1.generated.js';
import type { StorageClass } from '../../../api/types/storage-v1.generated.js';
import { Controller, splitKey } from '../../../client/controller.js';
import type { EventRecorder } from '../../../client/events/index.js';
import type { Lister } from '../../../client/informers/index.js';
import { NODES, PVCS, PVS, STORAGE_CLASSES } from '../../../client/resources.js';
import { isAlreadyExists, isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../../context.js';

/** Runs as the binder's service account: it may create and delete volumes and update claims. */
const SERVICE_ACCOUNT = 'persistent-volume-binder';
const SUPPORTED_ACCESS_MODES = new Set(['ReadWriteOnce', 'ReadWriteOncePod']);

export class LocalPathProvisioner implements RunnableController {
  readonly claimController: Controller;
  readonly volumeController: Controller;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly classes: Lister<StorageClass>;
  private readonly nodes: Lister<Node>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, LOCAL_PATH_PROVISIONER);
    const claims = context.informers.informerFor<PersistentVolumeClaim>(PVCS);
    const volumes = context.informers.informerFor<PersistentVolume>(PVS);
    const classes = context.informers.informerFor<StorageClass>(STORAGE_CLASSES);
    const nodes = context.informers.informerFor<Node>(NODES);
    this.claims = claims.lister;
    this.volumes = volumes.lister;
    this.classes = classes.lister;
    this.nodes = nodes.lister;
    this.claimController = new Controller({
      name: 'local-path-claims',
      sync: (key) => this.syncClaim(key),
      workers: 4,
      waitFor: [volumes, classes, nodes],
    });
    this.volumeController = new Controller({
      name: 'local-path-volumes',
      sync: (key) => this.syncVolume(key),
    });
    this.claimController.watch(claims, (claim) =>
      this.ours(claim) ? `${claim.metadata?.namespace}/${claim.metadata?.name}` : undefined,
    );
    this.volumeController.watch(volumes, (volume) =>
      volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] === LOCAL_PATH_PROVISIONER
        ? (volume.metadata?.name ?? '')
        : undefined,
    );
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.claimController.run(signal), this.volumeController.run(signal)]);
  }

  /** The binder handed the claim to this provisioner, or it is bound to one of its volumes. */
  private ours(claim: PersistentVolumeClaim): boolean {
    const annotations = claim.metadata?.annotations ?? {};
    return (
      (annotations[ANN_STORAGE_PROVISIONER] ?? annotations[ANN_BETA_STORAGE_PROVISIONER]) ===
      LOCAL_PATH_PROVISIONER
    );
  }

  async syncClaim(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const claim = this.claims.get(namespace, name);
    if (!claim || claim.metadata?.deletionTimestamp || !this.ours(claim)) return;
    if (claim.spec?.volumeName) {
      await this.expand(claim);
      return;
    }
    const volumeName = `pvc-${claim.metadata?.uid}`;
    if (this.volumes.get('', volumeName)) return;
    const storageClass = this.classes.get('', claimClass(claim));
    if (!storageClass || storageClass.provisioner !== LOCAL_PATH_PROVISIONER) return;
    const waitsForConsumer = storageClass.volumeBindingMode === 'WaitForFirstConsumer';
    const selected = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
    // A WaitForFirstConsumer claim is provisioned once the scheduler has chosen its node.
    if (waitsForConsumer && selected === undefined) return;
    const unsupported = (claim.spec?.accessModes ?? []).find((mode) => !SUPPORTED_ACCESS_MODES.has(mode));
    if (unsupported !== undefined || claim.spec?.volumeMode === 'Block') {
      this.failed(
        claim,
        storageClass,
        unsupported !== undefined
          ? `${LOCAL_PATH_PROVISIONER} only supports ReadWriteOnce and ReadWriteOncePod access modes`
          : `${LOCAL_PATH_PROVISIONER} only supports the Filesystem volume mode`,
      );
      return;
    }
    const nodeName = selected ?? this.leastLoadedNode();
    if (nodeName === undefined) {
      this.failed(claim, storageClass, 'no schedulable node to hold the volume');
      return;
    }
    this.recorder.event(
      claimRef(claim),
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${namespace}/${name}"`,
    );
    const volume: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: volumeName, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: LOCAL_PATH_PROVISIONER } },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
        accessModes: claim.spec?.accessModes,
        persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
        storageClassName: storageClass.metadata?.name,
        volumeMode: 'Filesystem',
        ...(storageClass.mountOptions ? { mountOptions: storageClass.mountOptions } : {}),
        claimRef: claimReference(claim),
        hostPath: { path: localPathOf(volumeName), type: 'DirectoryOrCreate' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [nodeName] }] },
            ],
          },
        },
      },
    };
    try {
      await this.client.resource<PersistentVolume>(PVS).create(volume);
    } catch (error) {
      if (isAlreadyExists(error)) return;
      this.failed(claim, storageClass, String(error));
      throw error;
    }
    this.recorder.event(
      claimRef(claim),
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${volumeName}`,
    );
  }

  private failed(claim: PersistentVolumeClaim, storageClass: StorageClass, reason: string): void {
    this.recorder.event(
      claimRef(claim),
      'Warning',
      'ProvisioningFailed',
      `failed to provision volume with StorageClass "${storageClass.metadata?.name}": ${reason}`,
    );
  }

  /** Ready, schedulable nodes; the one holding the fewest local-path volumes (then by name). */
  private leastLoadedNode(): string | undefined {
    const load = new Map<string, number>();
    for (const node of this.nodes.list()) {
      const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      const tainted = (node.spec?.taints ?? []).some((taint) => taint.effect === 'NoSchedule');
      if (ready && !node.spec?.unschedulable && !tainted) load.set(node.metadata?.name ?? '', 0);
    }
    for (const volume of this.volumes.list()) {
      if (volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== LOCAL_PATH_PROVISIONER) continue;
      const node =
        volume.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values?.[0];
      if (node !== undefined && load.has(node)) load.set(node, (load.get(node) ?? 0) + 1);
    }
    return [...load.entries()].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))[0]?.[0];
  }

  /**
   * ControllerExpandVolume for a directory: nothing to grow on the node, so the volume's capacity
   * and the claim's status follow the request at once, as external-resizer records a resize that
   * needs no node expansion.
   */
  private async expand(claim: PersistentVolumeClaim): Promise<void> {
    const volume = this.volumes.get('', claim.spec?.volumeName ?? '');
    if (volume?.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== LOCAL_PATH_PROVISIONER) return;
    if (claim.status?.phase !== 'Bound') return;
    const requested = requestedBytes(claim);
    const current = claim.status?.capacity?.storage;
    if (current === undefined || requested <= capacityBytesOf(current)) return;
    const storageClass = this.classes.get('', claimClass(claim));
    if (!storageClass?.allowVolumeExpansion) return;
    const size = claim.spec?.resources?.requests?.storage ?? current;
    const ref = claimRef(claim);
    this.recorder.event(
      ref,
      'Normal',
      'Resizing',
      `External resizer is resizing volume ${volume.metadata?.name}`,
    );
    if (capacityBytes(volume) < requested) {
      await this.client.resource<PersistentVolume>(PVS).update({
        ...volume,
        spec: { ...volume.spec, capacity: { ...volume.spec?.capacity, storage: size } },
      });
    }
    const status = {
      ...claim.status,
      capacity: { ...claim.status?.capacity, storage: size },
      allocatedResources: { storage: size },
    };
    delete status.allocatedResourceStatuses;
    status.conditions = (status.conditions ?? []).filter(
      (condition) => condition.type !== 'Resizing' && condition.type !== 'FileSystemResizePending',
    );
    if (status.conditions.length === 0) delete status.conditions;
    await this.client.resource<PersistentVolumeClaim>(PVCS).updateStatus({ ...claim, status });
    this.recorder.event(ref, 'Normal', 'VolumeResizeSuccessful', 'Resize volume succeeded');
  }

  /** A Released volume with reclaim Delete goes; its node's agent removes the directory. */
  async syncVolume(name: string): Promise<void> {
    const volume = this.volumes.get('', name);
    if (!volume || volume.metadata?.deletionTimestamp) return;
    if (volume.status?.phase !== 'Released' || volume.spec?.persistentVolumeReclaimPolicy !== 'Delete')
      return;
    try {
      await this.client
        .resource<PersistentVolume>(PVS)
        .delete('', name, { preconditions: { uid: volume.metadata?.uid } });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

function capacityBytesOf(storage: string): bigint {
  return capacityBytes({ spec: { capacity: { storage } } });
}

function claimRef(claim: PersistentVolumeClaim): PersistentVolumeClaim {
  return { ...claim, apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
}

export const localPathProvisionerController: ControllerDescriptor = {
  name: 'local-path-provisioner',
  create: (context) => new LocalPathProvisioner(context),
};
