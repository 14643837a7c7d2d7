// The kubelet's volumes: what the pod worker calls to prepare a pod's volumes and learn each
// container's mounts, and to remove them when the pod is gone.
import type { Client } from '../../../client/types.js';
import type { Mounter } from './mounter.js';
import { KubeletVolumeManager, type VolumeManager } from './volume-manager.js';

export { podFieldValue } from './downward-api.js';
export { VolumeSetUpError } from './errors.js';
export { expandReferences } from './expansion.js';
export type { Mounter } from './mounter.js';
export type { ContainerMount, VolumeManager } from './volume-manager.js';

export function createVolumeManager(options: {
  client: Client;
  nodeName: string;
  rootDir?: string;
  mounter?: Mounter;
  resyncSeconds?: number;
}): VolumeManager {
  return new KubeletVolumeManager(options);
}
