// The ephemeral volume controller (pkg/controller/volume/ephemeral): for each generic ephemeral
// volume of a pod it creates the claim `<pod>-<volume>` from the volume's claim template, owned
// by the pod (controller, blocking its deletion), so the garbage collector removes the claim with
// the pod. A claim of that name the pod does not own is never taken over: the pod gets a
// FailedBinding event instead.
import type { PersistentVolumeClaim, Pod, Volume } from '../../../api/types/core-v1.generated.js';
import { Controller, splitKey } from '../../../client/controller.js';
import type { EventRecorder } from '../../../client/events/index.js';
import { type Lister, objectOf } from '../../../client/informers/index.js';
import { PODS, PVCS } from '../../../client/resources.js';
import { isAlreadyExists } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../../context.js';

const SERVICE_ACCOUNT = 'ephemeral-volume-controller';

export class EphemeralVolumeController {
  readonly controller: Controller;
  private readonly pods: Lister<Pod>;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'ephemeral_volume');
    const pods = context.informers.informerFor<Pod>(PODS);
    const claims = context.informers.informerFor<PersistentVolumeClaim>(PVCS);
    this.pods = pods.lister;
    this.claims = claims.lister;
    this.controller = new Controller({
      name: 'ephemeral-volume',
      sync: (key) => this.sync(key),
      waitFor: [claims],
    });
    this.controller.watch(pods, (pod) =>
      (pod.spec?.volumes ?? []).some((volume) => volume.ephemeral)
        ? `${pod.metadata?.namespace}/${pod.metadata?.name}`
        : undefined,
    );
    // A deleted claim of a pod that still runs is made again.
    claims.addEventHandler({
      onDelete: (claim) => {
        const object = objectOf(claim);
        const owner = object.metadata?.ownerReferences?.find((ref) => ref.kind === 'Pod' && ref.controller);
        if (owner) this.controller.enqueueKey(`${object.metadata?.namespace}/${owner.name}`);
      },
    });
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pod = this.pods.get(namespace, name);
    if (!pod || pod.metadata?.deletionTimestamp) return;
    for (const volume of pod.spec?.volumes ?? []) {
      if (!volume.ephemeral) continue;
      try {
        await this.ensureClaim(pod, volume);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.recorder.event(
          { ...pod, apiVersion: 'v1', kind: 'Pod' },
          'Warning',
          'FailedBinding',
          `ephemeral volume ${volume.name}: ${message}`,
        );
        throw error;
      }
    }
  }

  private async ensureClaim(pod: Pod, volume: Volume): Promise<void> {
    const namespace = pod.metadata?.namespace ?? '';
    const claimName = `${pod.metadata?.name}-${volume.name}`;
    const existing = this.claims.get(namespace, claimName);
    if (existing) {
      const owned = (existing.metadata?.ownerReferences ?? []).some(
        (ref) => ref.controller === true && ref.uid === pod.metadata?.uid,
      );
      if (!owned) throw new Error(`PVC ${namespace}/${claimName} was not created for the pod`);
      return;
    }
    const template = volume.ephemeral?.volumeClaimTemplate;
    const claim: PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName,
        namespace,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: pod.metadata?.name ?? '',
            uid: pod.metadata?.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        ...(template?.metadata?.labels ? { labels: template.metadata.labels } : {}),
        ...(template?.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      },
      spec: template?.spec ?? {},
    };
    try {
      await this.client.resource<PersistentVolumeClaim>(PVCS).create(claim);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
}

export const ephemeralVolumeController: ControllerDescriptor = {
  name: 'ephemeral-volume-controller',
  create: (context) => new EphemeralVolumeController(context).controller,
};
