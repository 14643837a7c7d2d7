// Names and labels of everything tkube creates in Docker. Labels are the record: any later
// command finds a cluster's containers, volumes and network from them alone.

export const CLUSTER_LABEL = 'dev.tkube.cluster';
export const ROLE_LABEL = 'dev.tkube.role';
export const NODE_INDEX_LABEL = 'dev.tkube.node-index';

/** Where containerd keeps images and snapshots inside a node (a docker volume). */
export const CONTAINERD_DIR = '/var/lib/containerd';

export function networkName(cluster: string): string {
  return `tkube-${cluster}`;
}

export function nodeName(cluster: string, index: number): string {
  return `${cluster}-node-${index}`;
}

export function containerdVolumeName(node: string): string {
  return `${node}-containerd`;
}

/** The docker volume holding a node's local-path volumes: data outlives the container's layer. */
export function localPathVolumeName(node: string): string {
  return `${node}-local-path`;
}

/** The label filter value selecting one cluster's resources. */
export function clusterFilter(cluster: string): string {
  return `${CLUSTER_LABEL}=${cluster}`;
}
