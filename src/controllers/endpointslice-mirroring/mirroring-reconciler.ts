// The EndpointSlice mirroring reconciler (pkg/controller/endpointslicemirroring reconciler.go and
// its helpers): turns a custom Endpoints resource into EndpointSlices, one per address type and
// port set, each holding at most `maxEndpointsPerSubset` endpoints of a subset; labels and
// annotations follow the Endpoints', and the Endpoints own the slices.
import { isIP } from 'node:net';
import type {
  EndpointPort as CorePort,
  EndpointAddress,
  Endpoints,
} from '../../api/types/core-v1.generated.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import type { EventRecorder } from '../../client/events/index.js';
import { ENDPOINT_SLICES } from '../../client/resources.js';
import { hasStatusCause } from '../../client/rest/index.js';
import type { Client, ResourceClient } from '../../client/types.js';
import { repackSubsets } from '../endpoint/subsets.js';
import {
  type AddressType,
  endpointKey,
  endpointsEqualBeyondKey,
  MANAGED_BY_LABEL,
  portMapKey,
  SERVICE_NAME_LABEL,
} from '../endpointslice/slice-contents.js';
import type { EndpointSliceTracker } from '../endpointslice/slice-tracker.js';

/** The managed-by value of mirrored slices. */
export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';
/** Annotations of the Endpoints that mirrored slices do not carry. */
const UNMIRRORED_ANNOTATIONS = new Set([
  'endpoints.kubernetes.io/last-change-trigger-time',
  'kubectl.kubernetes.io/last-applied-configuration',
]);
const ADDRESS_TYPES: readonly AddressType[] = ['IPv4', 'IPv6'];

interface Desired {
  readonly addressType: AddressType;
  readonly ports: EndpointPort[];
  readonly endpoints: Map<string, Endpoint>;
}

interface Plan {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
}

export class MirroringReconciler {
  private readonly slices: ResourceClient<EndpointSlice>;

  constructor(
    client: Client,
    private readonly recorder: EventRecorder,
    private readonly maxEndpointsPerSubset: number,
    private readonly tracker: EndpointSliceTracker,
  ) {
    this.slices = client.resource<EndpointSlice>(ENDPOINT_SLICES);
  }

  async reconcile(endpoints: Endpoints, existing: readonly EndpointSlice[]): Promise<void> {
    const { desired, invalid, skipped } = this.desired(endpoints);
    const reference = { ...endpoints, apiVersion: 'v1', kind: 'Endpoints' };
    if (invalid > 0) {
      this.recorder.event(
        reference,
        'Warning',
        'InvalidIPAddress',
        `Skipped ${invalid} invalid IP addresses when mirroring to EndpointSlices`,
      );
    }
    if (skipped > invalid) {
      this.recorder.event(
        reference,
        'Warning',
        'TooManyAddressesToMirror',
        `A max of ${this.maxEndpointsPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${skipped} addresses were skipped`,
      );
    }
    const existingByKey = new Map<string, EndpointSlice[]>();
    for (const slice of existing) {
      const key = sliceKey(slice.addressType as AddressType, slice.ports ?? []);
      existingByKey.set(key, [...(existingByKey.get(key) ?? []), slice]);
    }
    const plan: Plan = { toCreate: [], toUpdate: [], toDelete: [] };
    for (const [key, wanted] of desired)
      this.reconcilePortMapping(endpoints, existingByKey.get(key) ?? [], wanted, plan);
    for (const [key, slices] of existingByKey) if (!desired.has(key)) plan.toDelete.push(...slices);
    await this.finalize(endpoints, recycle(plan));
  }

  /** Deletes every mirrored slice of a Service whose Endpoints are gone or no longer mirrored. */
  async deleteSlices(namespace: string, name: string, slices: readonly EndpointSlice[]): Promise<void> {
    const failures: string[] = [];
    for (const slice of slices) {
      try {
        await this.slices.delete(namespace, slice.metadata?.name ?? '');
      } catch (error) {
        failures.push(messageOf(error));
      }
    }
    if (failures.length > 0) {
      throw new Error(
        `error(s) deleting ${failures.length}/${slices.length} EndpointSlices for ${namespace}/${name} Endpoints, including: ${failures[0]}`,
      );
    }
  }

  /** The endpoints wanted per address type and port set, from the repacked subsets. */
  private desired(endpoints: Endpoints): { desired: Map<string, Desired>; invalid: number; skipped: number } {
    const desired = new Map<string, Desired>();
    let invalid = 0;
    let skipped = 0;
    for (const subset of repackSubsets(endpoints.subsets ?? [])) {
      const ports = (subset.ports ?? []).map(toSlicePort);
      const keys = new Map<AddressType, Desired>();
      for (const addressType of ADDRESS_TYPES) {
        const key = sliceKey(addressType, ports);
        const entry = desired.get(key) ?? { addressType, ports, endpoints: new Map() };
        desired.set(key, entry);
        keys.set(addressType, entry);
      }
      const addresses = subset.addresses ?? [];
      const notReady = subset.notReadyAddresses ?? [];
      let added = 0;
      const add = (address: EndpointAddress, ready: boolean): boolean => {
        if (added >= this.maxEndpointsPerSubset) return false;
        const addressType = addressTypeOf(address.ip);
        if (addressType === undefined) {
          invalid++;
          return true;
        }
        const endpoint = toEndpoint(address, ready);
        keys.get(addressType)?.endpoints.set(endpointKey(endpoint), endpoint);
        added++;
        return true;
      };
      for (const address of addresses) if (!add(address, true)) break;
      if (added < this.maxEndpointsPerSubset) for (const address of notReady) if (!add(address, false)) break;
      skipped += addresses.length + notReady.length - added;
    }
    return { desired, invalid, skipped };
  }

  /** reconcileByPortMapping: one slice per port mapping, kept when nothing in it changed. */
  private reconcilePortMapping(
    endpoints: Endpoints,
    existing: readonly EndpointSlice[],
    wanted: Desired,
    plan: Plan,
  ): void {
    if (wanted.endpoints.size === 0) {
      plan.toDelete.push(...existing);
      return;
    }
    const [first, ...rest] = existing;
    if (first !== undefined) {
      plan.toDelete.push(...rest);
      const {
        [MANAGED_BY_LABEL]: _managedBy,
        [SERVICE_NAME_LABEL]: _serviceName,
        ...labels
      } = first.metadata?.labels ?? {};
      if (
        sameEndpoints(first, wanted.endpoints) &&
        sameMap(endpoints.metadata?.labels, labels) &&
        sameMap(mirroredAnnotations(endpoints), first.metadata?.annotations)
      ) {
        return;
      }
    }
    const slice = newSlice(endpoints, wanted, first?.metadata?.name);
    slice.endpoints = [...wanted.endpoints.values()].slice(0, this.maxEndpointsPerSubset);
    if (first !== undefined) plan.toUpdate.push(slice);
    else plan.toCreate.push(slice);
  }

  private async finalize(endpoints: Endpoints, plan: Plan): Promise<void> {
    const key = `${endpoints.metadata?.namespace}/${endpoints.metadata?.name}`;
    if (!endpoints.metadata?.deletionTimestamp) {
      for (const slice of plan.toCreate) {
        try {
          this.tracker.update(await this.slices.create(slice));
        } catch (error) {
          if (hasStatusCause(error, 'NamespaceTerminating')) return;
          throw new Error(`failed to create EndpointSlice for Endpoints ${key}: ${messageOf(error)}`);
        }
      }
    }
    for (const slice of plan.toUpdate) {
      try {
        this.tracker.update(await this.slices.update(slice));
      } catch (error) {
        throw new Error(
          `failed to update ${slice.metadata?.name} EndpointSlice for Endpoints ${key}: ${messageOf(error)}`,
        );
      }
    }
    for (const slice of plan.toDelete) {
      try {
        await this.slices.delete(slice.metadata?.namespace ?? '', slice.metadata?.name ?? '');
        this.tracker.expectDeletion(slice);
      } catch (error) {
        throw new Error(
          `failed to delete ${slice.metadata?.name} EndpointSlice for Endpoints ${key}: ${messageOf(error)}`,
        );
      }
    }
  }
}

function sliceKey(addressType: AddressType, ports: readonly EndpointPort[]): string {
  return `${addressType}/${portMapKey(ports)}`;
}

function toSlicePort(port: CorePort): EndpointPort {
  return {
    name: port.name ?? '',
    port: port.port,
    protocol: port.protocol ?? 'TCP',
    ...(port.appProtocol !== undefined ? { appProtocol: port.appProtocol } : {}),
  };
}

/** getAddressType: undefined for what is not an IP address. */
function addressTypeOf(ip: string): AddressType | undefined {
  const family = isIP(ip);
  return family === 4 ? 'IPv4' : family === 6 ? 'IPv6' : undefined;
}

/** addressToEndpoint. */
function toEndpoint(address: EndpointAddress, ready: boolean): Endpoint {
  return {
    addresses: [address.ip],
    conditions: { ready },
    ...(address.targetRef !== undefined ? { targetRef: address.targetRef } : {}),
    ...(address.nodeName !== undefined ? { nodeName: address.nodeName } : {}),
    ...(address.hostname ? { hostname: address.hostname } : {}),
  };
}

function mirroredAnnotations(endpoints: Endpoints): Record<string, string> {
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(endpoints.metadata?.annotations ?? {}))
    if (!UNMIRRORED_ANNOTATIONS.has(key)) annotations[key] = value;
  return annotations;
}

/** newEndpointSlice: named as the slice it replaces, else generated from the Endpoints' name. */
function newSlice(endpoints: Endpoints, wanted: Desired, name: string | undefined): EndpointSlice {
  const endpointsName = endpoints.metadata?.name ?? '';
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: endpoints.metadata?.namespace,
      ...(name !== undefined ? { name } : { generateName: `${endpointsName}-` }),
      labels: {
        ...endpoints.metadata?.labels,
        [SERVICE_NAME_LABEL]: endpointsName,
        [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME,
      },
      annotations: mirroredAnnotations(endpoints),
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Endpoints',
          name: endpointsName,
          uid: endpoints.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: wanted.addressType,
    endpoints: [],
    ports: wanted.ports,
  };
}

/** totalChanges == 0: every endpoint of the slice wanted and unchanged, and none missing. */
function sameEndpoints(slice: EndpointSlice, wanted: ReadonlyMap<string, Endpoint>): boolean {
  let matched = 0;
  for (const endpoint of slice.endpoints ?? []) {
    const desired = wanted.get(endpointKey(endpoint));
    if (desired === undefined || !endpointsEqualBeyondKey(desired, endpoint)) return false;
    matched++;
  }
  return matched === wanted.size;
}

/** Semantic equality of string maps: absent and empty are the same. */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = Object.entries(a ?? {});
  const y = b ?? {};
  return x.length === Object.keys(y).length && x.every(([key, value]) => y[key] === value);
}

/** recycleSlices: a slice to create and one to delete of the same address type become an update. */
function recycle(plan: Plan): Plan {
  const toCreate: EndpointSlice[] = [];
  const toDelete = [...plan.toDelete];
  const toUpdate = [...plan.toUpdate];
  for (const slice of plan.toCreate) {
    const index = toDelete.findIndex((old) => old.addressType === slice.addressType);
    if (index < 0) {
      toCreate.push(slice);
      continue;
    }
    const [old] = toDelete.splice(index, 1);
    const { generateName: _generated, ...metadata } = slice.metadata ?? {};
    toUpdate.push({ ...slice, metadata: { ...metadata, name: old?.metadata?.name } });
  }
  return { toCreate, toUpdate, toDelete };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
