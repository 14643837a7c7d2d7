// What the control plane process of a cluster is told besides its state directory and port,
// derived from the cluster's record alone, so `tkube start` starts it exactly as `up` did.
import type { ControlPlaneSettings } from './controlplane-process.js';
import { loadBalancerRange } from './nodes/load-balancer-range.js';
import type { ClusterRecord } from './state.js';

export function controlPlaneSettingsOf(record: ClusterRecord): ControlPlaneSettings {
  const network = record.network;
  return {
    extraBindAddresses: network ? [network.gateway] : [],
    fakeNodes: record.fakeNodes ?? 0,
    ...(record.podSubnet !== undefined && { clusterCidr: record.podSubnet }),
    ...(network && { loadBalancerIpRange: loadBalancerRange(network.subnet) }),
    ...(record.datastoreEndpoint !== undefined && { datastoreEndpoint: record.datastoreEndpoint }),
    ...(record.controlPlanePorts && { controlPlanePorts: record.controlPlanePorts }),
    ...(record.componentFlags && { componentFlags: record.componentFlags }),
  };
}
