// What `tkube up` tells the agent of a node: written to /etc/tkube/agent.json in the node
// container, next to the node's client certificate.
import { readFile } from 'node:fs/promises';
import type { Taint } from '../api/types/core-v1.generated.js';

export const AGENT_CONFIG_PATH = '/etc/tkube/agent.json';
/** Where the node's kubelet reads static pod manifests (upstream's staticPodPath, as kubeadm sets it). */
export const DEFAULT_STATIC_POD_PATH = '/etc/kubernetes/manifests';

export interface AgentConfig {
  readonly nodeName: string;
  /** The node's address on the cluster network. */
  readonly nodeIP: string;
  /** The apiserver as nodes reach it: `https://<network gateway>:<port>`. */
  readonly server: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** A second identity for the pod network (it reads every Node; the node's own may not). */
  readonly networkCertFile: string;
  readonly networkKeyFile: string;
  /** A third identity for the cluster DNS server (it reads every Service and EndpointSlice). */
  readonly dnsCertFile?: string;
  readonly dnsKeyFile?: string;
  /** The proxy's identity (`system:kube-proxy`); without it the agent runs no proxy. */
  readonly proxyCertFile?: string;
  readonly proxyKeyFile?: string;
  /** The kubelet's serving certificate and key (port 10250), issued by the cluster CA. */
  readonly servingCertFile?: string;
  readonly servingKeyFile?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** The whole pod network (10.244.0.0/16); each node gets a /24 of it from node IPAM. */
  readonly podSubnet: string;
  /**
   * This node's /24, planned by `tkube up` and registered with the Node (node IPAM keeps it):
   * the CNI config can then be in place before the node even registers.
   */
  readonly podCIDR?: string;
  /** The static pod manifest directory; `""` turns static pods off. */
  readonly staticPodPath?: string;
}

export async function readAgentConfig(path = AGENT_CONFIG_PATH): Promise<AgentConfig> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<AgentConfig>;
  for (const field of [
    'nodeName',
    'nodeIP',
    'server',
    'caFile',
    'certFile',
    'keyFile',
    'podSubnet',
  ] as const) {
    if (typeof parsed[field] !== 'string' || parsed[field] === '') {
      throw new Error(`${path}: "${field}" must be a non-empty string`);
    }
  }
  return { labels: {}, taints: [], staticPodPath: DEFAULT_STATIC_POD_PATH, ...parsed } as AgentConfig;
}
