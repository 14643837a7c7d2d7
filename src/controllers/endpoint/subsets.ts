// Endpoints subsets in their canonical layout (pkg/api/v1/endpoints RepackSubsets): one subset
// per distinct set of addresses, holding every port those addresses share, addresses sorted by IP
// then pod UID. Also the 1000-address cap of an Endpoints object.
import type { EndpointAddress, EndpointPort, EndpointSubset } from '../../api/types/core-v1.generated.js';

/** The most addresses an Endpoints object holds; more are truncated (and annotated). */
export const MAX_ENDPOINTS_CAPACITY = 1000;

/** A port sentinel keeping port-less addresses (headless services without ports) through repacking. */
const NO_PORT = '<none>';

/**
 * Regroups subsets: addresses (de-duplicated by IP and pod UID) are gathered per port, then ports
 * offered by the same addresses with the same readiness share one subset. An address not ready
 * on any subset of a port is not ready for that port.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const addresses = new Map<string, EndpointAddress>();
  const ports = new Map<string, { port: EndpointPort | undefined; ready: Map<string, boolean> }>();
  const record = (address: EndpointAddress, port: EndpointPort | undefined, ready: boolean): void => {
    const addressKey = `${address.ip}/${address.targetRef?.uid ?? ''}`;
    if (!addresses.has(addressKey)) addresses.set(addressKey, address);
    const portKey = port === undefined ? NO_PORT : portIdentity(port);
    let entry = ports.get(portKey);
    if (!entry) {
      entry = { port, ready: new Map() };
      ports.set(portKey, entry);
    }
    // Not ready wins over ready.
    if (entry.ready.get(addressKey) !== false) entry.ready.set(addressKey, ready);
  };
  for (const subset of subsets) {
    const subsetPorts: (EndpointPort | undefined)[] = subset.ports?.length ? subset.ports : [undefined];
    for (const port of subsetPorts) {
      for (const address of subset.addresses ?? []) record(address, port, true);
      for (const address of subset.notReadyAddresses ?? []) record(address, port, false);
    }
  }
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of ports.values()) {
    const groupKey = [...ready.entries()]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([key, isReady]) => `${key}=${isReady}`)
      .join(',');
    let group = groups.get(groupKey);
    if (!group) {
      group = { ready, ports: [] };
      groups.set(groupKey, group);
    }
    if (port !== undefined) group.ports.push(port);
  }
  const result: EndpointSubset[] = [];
  for (const group of groups.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [key, isReady] of group.ready) (isReady ? ready : notReady).push(addresses.get(key)!);
    const subset: EndpointSubset = {};
    if (ready.length) subset.addresses = ready.sort(compareAddresses);
    if (notReady.length) subset.notReadyAddresses = notReady.sort(compareAddresses);
    if (group.ports.length)
      subset.ports = group.ports.sort((a, b) => compareStrings(portIdentity(a), portIdentity(b)));
    result.push(subset);
  }
  return result.sort((a, b) => compareStrings(subsetIdentity(a), subsetIdentity(b)));
}

function portIdentity(port: EndpointPort): string {
  return JSON.stringify([port.name ?? '', port.port, port.protocol ?? '', port.appProtocol ?? '']);
}

function subsetIdentity(subset: EndpointSubset): string {
  const first = subset.addresses?.[0] ?? subset.notReadyAddresses?.[0];
  return JSON.stringify([
    (subset.ports ?? []).map(portIdentity),
    first?.ip ?? '',
    first?.targetRef?.uid ?? '',
  ]);
}

function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  return compareStrings(a.ip, b.ip) || compareStrings(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Caps the subsets at {@link MAX_ENDPOINTS_CAPACITY} addresses, keeping ready addresses first
 * and sharing the room among subsets in proportion to their size. False when nothing was cut.
 */
export function truncateSubsets(subsets: EndpointSubset[]): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const subset of subsets) {
    totalReady += subset.addresses?.length ?? 0;
    totalNotReady += subset.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= MAX_ENDPOINTS_CAPACITY) return false;
  const truncateReady = totalReady > MAX_ENDPOINTS_CAPACITY;
  const room = truncateReady ? MAX_ENDPOINTS_CAPACITY : MAX_ENDPOINTS_CAPACITY - totalReady;
  const total = truncateReady ? totalReady : totalNotReady;
  let left = room;
  for (const subset of subsets) {
    const size = (truncateReady ? subset.addresses?.length : subset.notReadyAddresses?.length) ?? 0;
    // Rounded up, so the last subsets may get less than their share.
    const share = Math.min(Math.ceil((size / total) * room), left);
    if (truncateReady) {
      subset.addresses = subset.addresses?.slice(0, share);
      delete subset.notReadyAddresses;
      left -= subset.addresses?.length ?? 0;
    } else {
      subset.notReadyAddresses = subset.notReadyAddresses?.slice(0, share);
      left -= subset.notReadyAddresses?.length ?? 0;
    }
  }
  return true;
}

/** How many addresses the subsets hold. */
export function countAddresses(subsets: readonly EndpointSubset[] | undefined): number {
  let count = 0;
  for (const subset of subsets ?? [])
    count += (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0);
  return count;
}

/** Equality of two subset lists as the controller compares them: pod resourceVersions ignored. */
export function sameSubsets(
  a: readonly EndpointSubset[] | undefined,
  b: readonly EndpointSubset[] | undefined,
): boolean {
  return JSON.stringify(canonicalSubsets(a)) === JSON.stringify(canonicalSubsets(b));
}

function canonicalSubsets(subsets: readonly EndpointSubset[] | undefined): unknown[] {
  const address = (a: EndpointAddress) => [
    a.ip,
    a.hostname ?? '',
    a.nodeName ?? null,
    a.targetRef
      ? [a.targetRef.kind ?? '', a.targetRef.namespace ?? '', a.targetRef.name ?? '', a.targetRef.uid ?? '']
      : null,
  ];
  return (subsets ?? []).map((subset) => [
    (subset.addresses ?? []).map(address),
    (subset.notReadyAddresses ?? []).map(address),
    (subset.ports ?? []).map(portIdentity),
  ]);
}
