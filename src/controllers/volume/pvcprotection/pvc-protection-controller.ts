// The PVC protection controller (pkg/controller/volume/pvcprotection): a claim keeps the
// kubernetes.io/pvc-protection finalizer while it exists; once it is being deleted the finalizer
// goes only when no pod that is not finished uses it — checked against the cache, then confirmed
// with a live list, since a pod may have just been created.
import { PVC_PROTECTION_FINALIZER } from '../../../api/storage/persistent-volumes.js';
import { claimNamesOfPod } from '../../../api/storage/pod-claims.js';
import type { PersistentVolumeClaim, Pod } from '../../../api/types/core-v1.generated.js';
import { Controller, splitKey } from '../../../client/controller.js';
import { type Lister, objectOf } from '../../../client/informers/index.js';
import { PODS, PVCS } from '../../../client/resources.js';
import { isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../../context.js';

const SERVICE_ACCOUNT = 'pvc-protection-controller';

export class PvcProtectionController {
  readonly controller: Controller;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly pods: Lister<Pod>;
  private readonly client: Client;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    const claims = context.informers.informerFor<PersistentVolumeClaim>(PVCS);
    const pods = context.informers.informerFor<Pod>(PODS);
    this.claims = claims.lister;
    this.pods = pods.lister;
    this.controller = new Controller({ name: 'pvc-protection', sync: (key) => this.sync(key), workers: 2 });
    this.controller.watch(claims, (claim) =>
      needsWork(claim) ? `${claim.metadata?.namespace}/${claim.metadata?.name}` : undefined,
    );
    // A pod that finishes or goes away may free its claims.
    this.controller.watch(pods, (pod) =>
      claimNamesOfPod(objectOf(pod)).map((name) => `${pod.metadata?.namespace}/${name}`),
    );
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const claim = this.claims.get(namespace, name);
    if (!claim) return;
    const finalizers = claim.metadata?.finalizers ?? [];
    const has = finalizers.includes(PVC_PROTECTION_FINALIZER);
    if (!claim.metadata?.deletionTimestamp) {
      if (!has) await this.setFinalizers(claim, [...finalizers, PVC_PROTECTION_FINALIZER]);
      return;
    }
    if (!has) return;
    if (this.inUse(this.pods.list(namespace), name)) return;
    const live = await this.client.resource<Pod>(PODS).list(namespace);
    if (this.inUse(live.items, name)) return;
    await this.setFinalizers(
      claim,
      finalizers.filter((finalizer) => finalizer !== PVC_PROTECTION_FINALIZER),
    );
  }

  private inUse(pods: readonly Pod[], claimName: string): boolean {
    return pods.some(
      (pod) =>
        pod.status?.phase !== 'Succeeded' &&
        pod.status?.phase !== 'Failed' &&
        claimNamesOfPod(pod).includes(claimName),
    );
  }

  private async setFinalizers(claim: PersistentVolumeClaim, finalizers: string[]): Promise<void> {
    try {
      await this.client.resource<PersistentVolumeClaim>(PVCS).update({
        ...claim,
        metadata: { ...claim.metadata, finalizers },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

function needsWork(claim: PersistentVolumeClaim): boolean {
  const has = (claim.metadata?.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER);
  return claim.metadata?.deletionTimestamp ? has : !has;
}

export const pvcProtectionController: ControllerDescriptor = {
  name: 'persistentvolumeclaim-protection-controller',
  create: (context) => new PvcProtectionController(context).controller,
};
