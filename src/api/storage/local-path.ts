// tkube's built-in dynamic provisioner, `tkube.dev/local-path` (after Rancher's
// local-path-provisioner, which kind ships): a directory per volume under the node's state
// directory, served as a hostPath volume pinned to its node. The control plane creates and deletes
// the PersistentVolumes; each node's agent creates and removes the directories.

export const LOCAL_PATH_PROVISIONER = 'tkube.dev/local-path';
/** Where a node keeps its local-path volumes (on the node container's own Docker volume). */
export const LOCAL_PATH_ROOT = '/var/lib/tkube/local-path';
/** The StorageClass every cluster starts with, annotated as the default one. */
export const DEFAULT_STORAGE_CLASS = 'standard';
export const ANN_DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';

/** The directory of a local-path volume on its node. */
export function localPathOf(volumeName: string): string {
  return `${LOCAL_PATH_ROOT}/${volumeName}`;
}
