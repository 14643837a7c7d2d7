// What a fake node reports about itself: a configurable capacity with nothing reserved
// (allocatable equals capacity), and nodeInfo naming the simulated runtime. IDs derive from the
// node's name, so a restarted control plane reports the same machine; the boot ID is new each time.
import { createHash } from 'node:crypto';
import { release } from 'node:os';
import { DEFAULT_MAX_PODS } from '../../agent/node/capacity.js';
import { type NodeFacts, systemInfo } from '../../agent/node/node-object.js';
import { Quantity } from '../../api/quantity.js';
import { TKUBE_VERSION } from '../../api/tkube-version.js';
import { FAKE_RUNTIME_SCHEME } from './pod-status.js';

/** A fake node's capacity unless configured otherwise. */
export const DEFAULT_FAKE_NODE_CAPACITY: Readonly<Record<string, string>> = {
  cpu: '8',
  'ephemeral-storage': '100Gi',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
  memory: '32Gi',
  pods: String(DEFAULT_MAX_PODS),
};

export const FAKE_OS_IMAGE = 'tkube fake node';

/** The default capacity with `overrides` on top; every value must be a quantity. */
export function fakeNodeCapacity(overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  const capacity: Record<string, string> = { ...DEFAULT_FAKE_NODE_CAPACITY };
  for (const [resource, value] of Object.entries(overrides)) {
    capacity[resource] = Quantity.parse(value).canonical();
  }
  return capacity;
}

/**
 * The node's facts; `podAddresses` (how many pod IPs its CIDR holds, once known) caps the pods
 * it offers, so the scheduler never places a pod the node could not give an address.
 */
export function fakeNodeFacts(
  name: string,
  capacity: Readonly<Record<string, string>>,
  bootID: string,
  podAddresses?: number,
): NodeFacts {
  const offered = { ...capacity };
  if (podAddresses !== undefined && Number(offered.pods ?? DEFAULT_MAX_PODS) > podAddresses) {
    offered.pods = String(podAddresses);
  }
  const machineID = createHash('sha256').update(`tkube-fake-node/${name}`).digest('hex').slice(0, 32);
  return {
    resources: { capacity: offered, allocatable: { ...offered } },
    systemInfo: systemInfo({
      machineID,
      systemUUID: uuidOf(machineID),
      bootID,
      kernelVersion: release(),
      osImage: FAKE_OS_IMAGE,
      containerRuntimeVersion: `${FAKE_RUNTIME_SCHEME}${TKUBE_VERSION}`,
    }),
  };
}

/** 32 hex digits in the 8-4-4-4-12 form of a UUID. */
function uuidOf(hex: string): string {
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join(
    '-',
  );
}
