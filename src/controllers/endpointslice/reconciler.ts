// The EndpointSlice reconciler (k8s.io/endpointslice Reconciler): turns a service's pods into
// slices of at most `maxEndpointsPerSlice` endpoints, one group of slices per address type and
// distinct port set, changing as few slices as it can — endpoints stay in the slice they are in,
// new ones fill slices being updated anyway, then the unchanged slice they fit best, then new
// slices. A service with no endpoints keeps one empty placeholder slice. Then the hints its
// trafficDistribution asks for: unchanged slices whose hints are wrong are updated too.
import type { Node, Pod, Service } from '../../api/types/core-v1.generated.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { ENDPOINT_SLICES } from '../../client/resources.js';
import { hasStatusCause } from '../../client/rest/index.js';
import type { Client, ResourceClient } from '../../client/types.js';
import { LAST_CHANGE_TRIGGER_TIME_ANNOTATION, shouldPodBeInEndpoints } from '../endpoint/pod-membership.js';
import { formatTriggerTime } from '../endpoint/trigger-time-tracker.js';
import {
  type AddressType,
  addressTypesFor,
  endpointKey,
  endpointPorts,
  endpointsEqualBeyondKey,
  newEndpointSlice,
  ownedBy,
  podToEndpoint,
  portMapKey,
  sliceLabels,
} from './slice-contents.js';
import type { EndpointSliceTracker } from './slice-tracker.js';
import { hintsNeedUpdate, withHints } from './traffic-distribution.js';

interface DesiredPortMap {
  readonly ports: EndpointPort[];
  /** By endpoint key, in pod order. */
  readonly endpoints: Map<string, Endpoint>;
}

interface Plan {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
  /** Kept as they are, unless their hints need changing. */
  unchanged: EndpointSlice[];
}

export class Reconciler {
  private readonly slices: ResourceClient<EndpointSlice>;

  constructor(
    client: Client,
    private readonly nodeOf: (name: string) => Node | undefined,
    private readonly maxEndpointsPerSlice: number,
    private readonly tracker: EndpointSliceTracker,
  ) {
    this.slices = client.resource<EndpointSlice>(ENDPOINT_SLICES);
  }

  /** Brings the service's slices in line with its pods; throws the errors met (after doing the rest). */
  async reconcile(
    service: Service,
    pods: readonly Pod[],
    existing: readonly EndpointSlice[],
    triggerTime: number | undefined,
  ): Promise<void> {
    const errors: string[] = [];
    // Stored empty slices may come back with `endpoints: null`.
    existing = existing.map((slice) => (slice.endpoints ? slice : { ...slice, endpoints: [] }));
    const addressTypes = addressTypesFor(service);
    const unsupported = existing.filter((slice) => !addressTypes.has(slice.addressType as AddressType));
    for (const addressType of addressTypes) {
      const ofType = existing.filter((slice) => slice.addressType === addressType);
      try {
        await this.reconcileAddressType(service, pods, ofType, triggerTime, addressType, errors);
      } catch (error) {
        errors.push(messageOf(error));
      }
    }
    for (const slice of unsupported) {
      try {
        await this.slices.delete(slice.metadata?.namespace ?? '', slice.metadata?.name ?? '');
        this.tracker.expectDeletion(slice);
      } catch (error) {
        errors.push(
          `error deleting ${slice.metadata?.name} EndpointSlice for Service ${serviceKey(service)}: ${messageOf(error)}`,
        );
      }
    }
    if (errors.length === 1) throw new Error(errors[0]);
    if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
  }

  private async reconcileAddressType(
    service: Service,
    pods: readonly Pod[],
    existing: readonly EndpointSlice[],
    triggerTime: number | undefined,
    addressType: AddressType,
    errors: string[],
  ): Promise<void> {
    const plan: Plan = { toCreate: [], toUpdate: [], toDelete: [], unchanged: [] };
    const existingByPortMap = new Map<string, EndpointSlice[]>();
    for (const slice of existing) {
      if (!ownedBy(slice, service)) {
        plan.toDelete.push(slice);
        continue;
      }
      const key = portMapKey(slice.ports);
      existingByPortMap.set(key, [...(existingByPortMap.get(key) ?? []), slice]);
    }

    const desired = new Map<string, DesiredPortMap>();
    const publishNotReady = service.spec?.publishNotReadyAddresses === true;
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const ports = endpointPorts(service, pod);
      const key = portMapKey(ports);
      let portMap = desired.get(key);
      if (!portMap) {
        portMap = { ports, endpoints: new Map() };
        desired.set(key, portMap);
      }
      const nodeName = pod.spec?.nodeName ?? '';
      const node = this.nodeOf(nodeName);
      if (!node && !publishNotReady) {
        errors.push(
          `skipping Pod ${pod.metadata?.name} for Service ${serviceKey(service)}: Node ${nodeName} Not Found`,
        );
        continue;
      }
      const endpoint = podToEndpoint(pod, node, service, addressType);
      if (endpoint.addresses.length > 0) portMap.endpoints.set(endpointKey(endpoint), endpoint);
    }

    for (const [key, portMap] of desired) {
      const part = this.reconcilePortMap(service, existingByPortMap.get(key) ?? [], portMap, addressType);
      plan.toCreate.push(...part.toCreate);
      plan.toUpdate.push(...part.toUpdate);
      plan.toDelete.push(...part.toDelete);
      plan.unchanged.push(...part.unchanged);
    }
    for (const [key, slices] of existingByPortMap) {
      if (!desired.has(key)) plan.toDelete.push(...slices);
    }

    // No endpoints at all: keep (or make) one empty slice, so consumers see the service has none.
    if (existing.length === plan.toDelete.length && plan.toCreate.length === 0) {
      const placeholder = newEndpointSlice(service, [], addressType);
      const only = plan.toDelete[0];
      if (plan.toDelete.length === 1 && only && isPlaceholderLike(only, placeholder)) {
        plan.toDelete = [];
      } else {
        plan.toCreate.push(placeholder);
      }
    }
    reconcileHints(plan, service.spec?.trafficDistribution);
    await this.finalize(service, plan, triggerTime);
  }

  private reconcilePortMap(
    service: Service,
    existing: readonly EndpointSlice[],
    desired: DesiredPortMap,
    addressType: AddressType,
  ): Plan {
    const wanted = new Map(desired.endpoints);
    const byName = new Map<string, EndpointSlice>();
    const unchanged = new Set<string>();
    const toUpdate = new Set<string>();
    const toDelete = new Set<string>();
    for (const slice of existing) {
      const name = slice.metadata?.name ?? '';
      byName.set(name, slice);
      const kept: Endpoint[] = [];
      let endpointChanged = false;
      for (const endpoint of slice.endpoints ?? []) {
        const key = endpointKey(endpoint);
        const target = wanted.get(key);
        if (!target) continue;
        kept.push(target);
        if (!endpointsEqualBeyondKey(target, endpoint)) endpointChanged = true;
        wanted.delete(key);
      }
      const { labels, changed: labelsChanged } = sliceLabels(slice, service);
      if (endpointChanged || kept.length !== (slice.endpoints ?? []).length) {
        if (kept.length === 0) {
          toDelete.add(name);
        } else {
          byName.set(name, { ...slice, metadata: { ...slice.metadata, labels }, endpoints: kept });
          toUpdate.add(name);
        }
      } else if (labelsChanged) {
        byName.set(name, { ...slice, metadata: { ...slice.metadata, labels } });
        toUpdate.add(name);
      } else {
        unchanged.add(name);
      }
    }

    const remaining = [...wanted.values()];
    const take = (slice: EndpointSlice): void => {
      while (remaining.length > 0 && slice.endpoints.length < this.maxEndpointsPerSlice) {
        slice.endpoints.push(remaining.shift()!);
      }
    };
    // New endpoints go first into slices that are being written anyway, fullest first.
    if (remaining.length > 0 && toUpdate.size > 0) {
      const updating = [...toUpdate].map((name) => byName.get(name)!);
      updating.sort((a, b) => b.endpoints.length - a.endpoints.length);
      for (const slice of updating) {
        slice.endpoints = [...slice.endpoints];
        take(slice);
      }
    }
    const toCreate: EndpointSlice[] = [];
    while (remaining.length > 0) {
      let slice: EndpointSlice | undefined;
      if (remaining.length < this.maxEndpointsPerSlice && unchanged.size > 0) {
        const fit = closestFit(
          [...unchanged].map((name) => byName.get(name)!),
          remaining.length,
          this.maxEndpointsPerSlice,
        );
        if (fit) {
          slice = { ...fit, endpoints: [...fit.endpoints] };
          byName.set(fit.metadata?.name ?? '', slice);
        }
      }
      slice ??= newEndpointSlice(service, desired.ports, addressType);
      take(slice);
      const name = slice.metadata?.name;
      if (name) {
        toUpdate.add(name);
        unchanged.delete(name);
      } else {
        toCreate.push(slice);
      }
    }
    return {
      toCreate,
      toUpdate: [...toUpdate].map((name) => byName.get(name)!),
      toDelete: [...toDelete].map((name) => byName.get(name)!),
      unchanged: [...unchanged].map((name) => byName.get(name)!),
    };
  }

  private async finalize(service: Service, plan: Plan, triggerTime: number | undefined): Promise<void> {
    const namespace = service.metadata?.namespace ?? '';
    // A slice about to be created replaces one about to be deleted: one update instead of two writes.
    for (let i = 0; i < plan.toDelete.length && plan.toCreate.length > 0; ) {
      const old = plan.toDelete[i]!;
      const created = plan.toCreate[plan.toCreate.length - 1]!;
      if (old.addressType === created.addressType && ownedBy(old, service)) {
        plan.toCreate.pop();
        plan.toUpdate.push({
          ...created,
          metadata: {
            ...created.metadata,
            name: old.metadata?.name,
            resourceVersion: old.metadata?.resourceVersion,
          },
        });
        plan.toDelete.splice(i, 1);
      } else {
        i++;
      }
    }
    if (!service.metadata?.deletionTimestamp) {
      for (const slice of plan.toCreate) {
        try {
          this.tracker.update(await this.slices.create(withTriggerTime(slice, triggerTime)));
        } catch (error) {
          // A terminating namespace refuses creates; its slices are going anyway.
          if (hasStatusCause(error, 'NamespaceTerminating')) return;
          throw new Error(
            `failed to create EndpointSlice for Service ${serviceKey(service)}: ${messageOf(error)}`,
          );
        }
      }
    }
    for (const slice of plan.toUpdate) {
      try {
        this.tracker.update(await this.slices.update(withTriggerTime(slice, triggerTime)));
      } catch (error) {
        throw new Error(
          `failed to update ${slice.metadata?.name} EndpointSlice for Service ${serviceKey(service)}: ${messageOf(error)}`,
        );
      }
    }
    for (const slice of plan.toDelete) {
      try {
        await this.slices.delete(namespace, slice.metadata?.name ?? '');
        this.tracker.expectDeletion(slice);
      } catch (error) {
        throw new Error(
          `failed to delete ${slice.metadata?.name} EndpointSlice for Service ${serviceKey(service)}: ${messageOf(error)}`,
        );
      }
    }
  }
}

/** trafficdist.ReconcileHints: unchanged slices with wrong hints join the updates; all written slices get them. */
function reconcileHints(plan: Plan, trafficDistribution: string | undefined): void {
  const stale = plan.unchanged.filter((slice) => hintsNeedUpdate(slice, trafficDistribution));
  plan.toUpdate.push(...stale);
  const hinted = (slice: EndpointSlice): EndpointSlice => ({
    ...slice,
    endpoints: (slice.endpoints ?? []).map((endpoint) => withHints(endpoint, trafficDistribution)),
  });
  plan.toCreate = plan.toCreate.map(hinted);
  plan.toUpdate = plan.toUpdate.map(hinted);
}

/** The unchanged slice with room for `count` more endpoints that would be left fullest. */
function closestFit(slices: readonly EndpointSlice[], count: number, max: number): EndpointSlice | undefined {
  let best: EndpointSlice | undefined;
  let bestRoom = max;
  for (const slice of slices) {
    const room = max - (count + slice.endpoints.length);
    if (room >= 0 && room < bestRoom) {
      best = slice;
      bestRoom = room;
      if (room === 0) break;
    }
  }
  return best;
}

/** An existing slice that is already the placeholder: same namespace, labels, owner and no content. */
function isPlaceholderLike(slice: EndpointSlice, placeholder: EndpointSlice): boolean {
  const labels = Object.entries(slice.metadata?.labels ?? {});
  const wanted = placeholder.metadata?.labels ?? {};
  const owners = (s: EndpointSlice) =>
    JSON.stringify(
      (s.metadata?.ownerReferences ?? []).map((o) => [
        o.apiVersion,
        o.kind,
        o.name,
        o.uid,
        !!o.controller,
        !!o.blockOwnerDeletion,
      ]),
    );
  return (
    slice.metadata?.namespace === placeholder.metadata?.namespace &&
    labels.length === Object.keys(wanted).length &&
    labels.every(([key, value]) => wanted[key] === value) &&
    owners(slice) === owners(placeholder) &&
    slice.addressType === placeholder.addressType &&
    (slice.endpoints ?? []).length === 0 &&
    (slice.ports ?? []).length === 0
  );
}

function withTriggerTime(slice: EndpointSlice, triggerTime: number | undefined): EndpointSlice {
  const annotations = { ...slice.metadata?.annotations };
  if (triggerTime !== undefined)
    annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = formatTriggerTime(triggerTime);
  else delete annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
  return { ...slice, metadata: { ...slice.metadata, annotations } };
}

function serviceKey(service: Service): string {
  return `${service.metadata?.namespace}/${service.metadata?.name}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
