// The cluster as DNS sees it (the state CoreDNS's kubernetes plugin keeps from its informers):
// Services, their EndpointSlices and the Namespaces, indexed by name, with a reverse index from
// addresses to names built only when a PTR query needs it after a change.
import type { Namespace, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointPort, EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { canonicalAddress, dashedAddress } from './addresses.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** One address of a service's endpoints, with what DNS needs to know of it. */
export interface DnsEndpoint {
  readonly address: string;
  readonly hostname?: string;
  /** Ready, or published though not ready (`publishNotReadyAddresses`). */
  readonly ready: boolean;
  /** The ports of the EndpointSlice the address came from. */
  readonly ports: readonly EndpointPort[];
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The label an endpoint's records use: its hostname, else its dashed address (as CoreDNS names it). */
export function endpointLabel(endpoint: Pick<DnsEndpoint, 'address' | 'hostname'>): string {
  return endpoint.hostname || dashedAddress(endpoint.address);
}

export class ClusterRecords {
  private readonly services = new Map<string, Service>();
  /** Service key → slice name → slice. */
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  /** Slice key → the service key it is filed under (a slice's label may change). */
  private readonly sliceOwners = new Map<string, string>();
  private readonly namespaces = new Set<string>();
  private reverse: Map<string, string[]> | undefined;

  constructor(private readonly zone: string) {}

  setService(service: Service): void {
    const { namespace = '', name = '' } = service.metadata ?? {};
    this.services.set(keyOf(namespace, name), service);
    this.reverse = undefined;
  }

  deleteService(namespace: string, name: string): void {
    this.services.delete(keyOf(namespace, name));
    this.reverse = undefined;
  }

  setEndpointSlice(slice: EndpointSlice): void {
    const { namespace = '', name = '' } = slice.metadata ?? {};
    this.deleteEndpointSlice(namespace, name);
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service) return;
    const serviceKey = keyOf(namespace, service);
    const slices = this.slices.get(serviceKey) ?? new Map<string, EndpointSlice>();
    this.slices.set(serviceKey, slices);
    slices.set(name, slice);
    this.sliceOwners.set(keyOf(namespace, name), serviceKey);
    this.reverse = undefined;
  }

  deleteEndpointSlice(namespace: string, name: string): void {
    const sliceKey = keyOf(namespace, name);
    const serviceKey = this.sliceOwners.get(sliceKey);
    if (serviceKey === undefined) return;
    this.sliceOwners.delete(sliceKey);
    const slices = this.slices.get(serviceKey);
    slices?.delete(name);
    if (slices?.size === 0) this.slices.delete(serviceKey);
    this.reverse = undefined;
  }

  setNamespace(namespace: Namespace): void {
    if (namespace.metadata?.name) this.namespaces.add(namespace.metadata.name);
  }

  deleteNamespace(name: string): void {
    this.namespaces.delete(name);
  }

  /** A namespace exists when it is known, or when something in it is (before its watch catches up). */
  namespaceExists(name: string): boolean {
    if (this.namespaces.has(name)) return true;
    for (const key of this.services.keys()) if (key.startsWith(`${name}/`)) return true;
    return false;
  }

  service(namespace: string, name: string): Service | undefined {
    return this.services.get(keyOf(namespace, name));
  }

  /**
   * The service's endpoint addresses, each once per slice: ready ones, and not-ready ones too
   * when the service publishes them (a missing `ready` condition counts as ready, as the API says).
   */
  endpoints(namespace: string, name: string): DnsEndpoint[] {
    const service = this.service(namespace, name);
    const publishNotReady = service?.spec?.publishNotReadyAddresses === true;
    const result: DnsEndpoint[] = [];
    for (const slice of this.slices.get(keyOf(namespace, name))?.values() ?? []) {
      if (slice.addressType === 'FQDN') continue;
      for (const endpoint of slice.endpoints ?? []) {
        const ready = endpoint.conditions?.ready !== false;
        if (!ready && !publishNotReady) continue;
        const address = endpoint.addresses?.[0];
        if (!address || canonicalAddress(address) === undefined) continue;
        result.push({
          address,
          ...(endpoint.hostname && { hostname: endpoint.hostname }),
          ready: true,
          ports: slice.ports ?? [],
        });
      }
    }
    return result;
  }

  /** The names a PTR query for the (canonical) address answers: the service's, else its endpoints'. */
  namesOfAddress(address: string): readonly string[] {
    if (!this.reverse) this.reverse = this.buildReverse();
    return this.reverse.get(address) ?? [];
  }

  private buildReverse(): Map<string, string[]> {
    const services = new Map<string, string[]>();
    const endpoints = new Map<string, string[]>();
    const add = (map: Map<string, string[]>, address: string, name: string) => {
      const canonical = canonicalAddress(address);
      if (canonical === undefined) return;
      const names = map.get(canonical);
      if (!names) map.set(canonical, [name]);
      else if (!names.includes(name)) names.push(name);
    };
    for (const [key, service] of this.services) {
      const [namespace = '', name = ''] = key.split('/');
      const serviceName = `${name}.${namespace}.svc.${this.zone}`;
      const clusterIPs =
        service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : []);
      if (service.spec?.type !== 'ExternalName') {
        for (const ip of clusterIPs) if (ip !== 'None') add(services, ip, serviceName);
      }
      for (const endpoint of this.endpoints(namespace, name)) {
        add(endpoints, endpoint.address, `${endpointLabel(endpoint)}.${serviceName}`);
      }
    }
    for (const [address, names] of endpoints) if (!services.has(address)) services.set(address, names);
    return services;
  }
}
