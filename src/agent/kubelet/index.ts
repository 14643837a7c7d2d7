// The kubelet: pods bound to this node run in containerd through CRI.
export {
  CLUSTER_DNS_IP,
  CLUSTER_DOMAIN,
  parseResolvConf,
  podUsableHostDns,
  type ResolvConf,
} from './config/dns.js';
export { CriClient, CriError, DEFAULT_CRI_ENDPOINT } from './cri/index.js';
export { Kubelet, type KubeletOptions } from './kubelet.js';
export { runtimeNotReadyReasons } from './runtime-health.js';

/** The cluster a node belongs to, from its name (`<cluster>-node-<n>`). */
export function clusterNameOfNode(nodeName: string): string | undefined {
  return /^(.*)-node-\d+$/.exec(nodeName)?.[1];
}
