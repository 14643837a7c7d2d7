// The PV protection controller (pkg/controller/volume/pvprotection): a volume keeps the
// kubernetes.io/pv-protection finalizer while it exists; once it is being deleted the finalizer
// goes as soon as the volume is no longer Bound to a claim.
import { PV_PROTECTION_FINALIZER } from '../../../api/storage/persistent-volumes.js';
import type { PersistentVolume } from '../../../api/types/core-v1.generated.js';
import { Controller } from '../../../client/controller.js';
import type { Lister } from '../../../client/informers/index.js';
import { PVS } from '../../../client/resources.js';
import { isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../../context.js';

const SERVICE_ACCOUNT = 'pv-protection-controller';

export class PvProtectionController {
  readonly controller: Controller;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly client: Client;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    const volumes = context.informers.informerFor<PersistentVolume>(PVS);
    this.volumes = volumes.lister;
    this.controller = new Controller({ name: 'pv-protection', sync: (key) => this.sync(key) });
    this.controller.watch(volumes, (volume) =>
      needsWork(volume) ? (volume.metadata?.name ?? '') : undefined,
    );
  }

  async sync(name: string): Promise<void> {
    const volume = this.volumes.get('', name);
    if (!volume || !needsWork(volume)) return;
    const finalizers = volume.metadata?.finalizers ?? [];
    const next = volume.metadata?.deletionTimestamp
      ? finalizers.filter((finalizer) => finalizer !== PV_PROTECTION_FINALIZER)
      : [...finalizers, PV_PROTECTION_FINALIZER];
    try {
      await this.client.resource<PersistentVolume>(PVS).update({
        ...volume,
        metadata: { ...volume.metadata, finalizers: next },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** Missing the finalizer while alive, or holding it while deleted and not Bound. */
function needsWork(volume: PersistentVolume): boolean {
  const has = (volume.metadata?.finalizers ?? []).includes(PV_PROTECTION_FINALIZER);
  if (!volume.metadata?.deletionTimestamp) return !has;
  return has && volume.status?.phase !== 'Bound';
}

export const pvProtectionController: ControllerDescriptor = {
  name: 'persistentvolume-protection-controller',
  create: (context) => new PvProtectionController(context).controller,
};
