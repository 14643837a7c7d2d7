// The endpoints of the cluster DNS service. tkube's DNS server runs in every node's agent (as
// NodeLocal DNSCache runs on every node), so `kube-system/kube-dns` has no selector: this
// controller lists each node that runs an agent — its InternalIP and name, ready while the
// node is Ready — in the service's Endpoints and in one EndpointSlice managed by tkube (the
// endpointslice controller leaves slices it does not manage alone), as kube-proxy and
// `kubectl get endpoints,endpointslices` expect to see them. A node whose InternalIP no pod can
// reach (loopback, link-local, unspecified: what Endpoints validation refuses) is left out, so
// one such node cannot keep the others' addresses from being written. The ingress controller's
// LoadBalancer service `kube-system/tkube-ingress` is served by the agents the same way (their
// ports 80 and 443), so its endpoints are kept here too. Each endpoint carries the hints the
// service's trafficDistribution asks for, as the endpointslice controller would set them.

import { CLUSTER_DNS_NAMESPACE, CLUSTER_DNS_SERVICE } from '../../api/cluster-dns.js';
import { INGRESS_SERVICE, INGRESS_SERVICE_NAMESPACE } from '../../api/ingress.js';
import { type Ipv4Cidr, ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import { LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import type {
  EndpointPort as CoreEndpointPort,
  EndpointAddress,
  Endpoints,
  Node,
  Service,
  ServicePort,
} from '../../api/types/core-v1.generated.js';
import type { EndpointPort, EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { Controller } from '../../client/controller.js';
import { ENDPOINT_SLICES, ENDPOINTS, NODES, SERVICES } from '../../client/resources.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/index.js';
import type { Client, ResourceRef } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import { withHints } from '../endpointslice/traffic-distribution.js';

/** The managed-by value of the slice this controller writes. */
export const CLUSTER_DNS_MANAGER = 'cluster-dns.tkube.dev';
export const CLUSTER_DNS_SERVICE_ACCOUNT = 'cluster-dns-controller';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** Tells the endpointslice mirroring controller not to mirror these Endpoints: the slice is ours. */
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
/** Fake nodes (providers/fake) carry this label; they run no agent and so no DNS server. */
const FAKE_NODE_LABEL = 'fake.tkube.dev/node';
/** The services whose endpoints are the agents: cluster DNS and the ingress controller. */
const KEYS = new Set([
  `${CLUSTER_DNS_NAMESPACE}/${CLUSTER_DNS_SERVICE}`,
  `${INGRESS_SERVICE_NAMESPACE}/${INGRESS_SERVICE}`,
]);

/** Ranges Endpoints validation (ValidateNonSpecialIP) refuses: loopback, link-local, link-local multicast. */
const SPECIAL_RANGES: readonly Ipv4Cidr[] = ['127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/24'].map(
  (cidr) => parseIpv4Cidr(cidr)!,
);

/** Whether an IPv4 slice and Endpoints may list `ip`: IPv4, neither unspecified nor special. */
function isEndpointAddress(ip: string): boolean {
  const value = parseIpv4(ip);
  return (
    value !== undefined && value !== 0 && !SPECIAL_RANGES.some((range) => ipv4CidrContains(range, value))
  );
}

export interface DnsNode {
  readonly name: string;
  readonly ip: string;
  readonly ready: boolean;
  /** Its `topology.kubernetes.io/zone` label, if any. */
  readonly zone?: string;
}

/** The nodes serving DNS, by name: those with an agent and an InternalIP pods can reach. */
export function dnsNodes(nodes: readonly Node[]): DnsNode[] {
  const result: DnsNode[] = [];
  for (const node of nodes) {
    if (node.metadata?.labels?.[FAKE_NODE_LABEL] === 'true') continue;
    const ip = node.status?.addresses?.find((address) => address.type === 'InternalIP')?.address;
    if (!ip || !isEndpointAddress(ip) || !node.metadata?.name) continue;
    const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    const zone = node.metadata.labels?.[LABEL_TOPOLOGY_ZONE];
    result.push({ name: node.metadata.name, ip, ready, ...(zone && { zone }) });
  }
  return result.sort((a, b) => a.name.localeCompare(b.name));
}

function targetPortOf(port: ServicePort): number {
  return typeof port.targetPort === 'number' ? port.targetPort : port.port;
}

export function desiredEndpoints(service: Service, nodes: readonly DnsNode[]): Endpoints {
  const address = (node: DnsNode): EndpointAddress => ({ ip: node.ip, nodeName: node.name });
  const ready = nodes.filter((node) => node.ready).map(address);
  const notReady = nodes.filter((node) => !node.ready).map(address);
  const ports: CoreEndpointPort[] = (service.spec?.ports ?? []).map((port) => ({
    ...(port.name && { name: port.name }),
    port: targetPortOf(port),
    protocol: port.protocol ?? 'TCP',
  }));
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name: service.metadata?.name ?? '',
      namespace: service.metadata?.namespace ?? '',
      labels: { ...service.metadata?.labels, [SKIP_MIRROR_LABEL]: 'true' },
    },
    subsets:
      nodes.length === 0
        ? []
        : [
            {
              ...(ready.length > 0 && { addresses: ready }),
              ...(notReady.length > 0 && { notReadyAddresses: notReady }),
              ports,
            },
          ],
  };
}

export function desiredSlice(service: Service, nodes: readonly DnsNode[]): EndpointSlice {
  const ports: EndpointPort[] = (service.spec?.ports ?? []).map((port) => ({
    name: port.name ?? '',
    port: targetPortOf(port),
    protocol: port.protocol ?? 'TCP',
  }));
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: service.metadata?.name ?? '',
      namespace: service.metadata?.namespace ?? '',
      labels: {
        ...service.metadata?.labels,
        [SERVICE_NAME_LABEL]: service.metadata?.name ?? '',
        [MANAGED_BY_LABEL]: CLUSTER_DNS_MANAGER,
      },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: service.metadata?.name ?? '',
          uid: service.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: 'IPv4',
    endpoints: nodes.map((node) =>
      withHints(
        {
          addresses: [node.ip],
          conditions: { ready: node.ready, serving: node.ready, terminating: false },
          nodeName: node.name,
          ...(node.zone && { zone: node.zone }),
        },
        service.spec?.trafficDistribution,
      ),
    ),
    ports,
  };
}

/** Whether `current` already says what `desired` says (labels, owners, and the content fields). */
function sameContent<T extends Endpoints | EndpointSlice>(
  current: T,
  desired: T,
  fields: readonly (keyof T)[],
): boolean {
  const pick = (object: T) =>
    JSON.stringify([
      object.metadata?.labels ?? {},
      object.metadata?.ownerReferences ?? [],
      ...fields.map((field) => object[field] ?? null),
    ]);
  return pick(current) === pick(desired);
}

export class ClusterDnsController {
  readonly controller: Controller;
  private readonly client: Client;

  constructor(private readonly context: ControllerContext) {
    this.client = context.clientFor(CLUSTER_DNS_SERVICE_ACCOUNT);
    this.controller = new Controller({ name: 'cluster-dns', sync: (key) => this.sync(key) });
    const toKey = () => [...KEYS];
    const ours = (object: { metadata?: { namespace?: string; name?: string } }) => {
      const key = `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
      return KEYS.has(key) ? key : undefined;
    };
    this.controller.watch(context.informers.informerFor<Node>(NODES), toKey);
    this.controller.watch(context.informers.informerFor<Service>(SERVICES), ours);
    this.controller.watch(context.informers.informerFor<Endpoints>(ENDPOINTS), ours);
    this.controller.watch(context.informers.informerFor<EndpointSlice>(ENDPOINT_SLICES), ours);
  }

  async sync(key = `${CLUSTER_DNS_NAMESPACE}/${CLUSTER_DNS_SERVICE}`): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const service = this.context.informers.listerFor<Service>(SERVICES).get(namespace, name);
    // Gone: its Endpoints go with it (as the endpoints controller deletes them), its slice by owner.
    if (!service || service.metadata?.deletionTimestamp) {
      await this.client
        .resource<Endpoints>(ENDPOINTS)
        .delete(namespace, name)
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
      return;
    }
    const nodes = dnsNodes(this.context.informers.listerFor<Node>(NODES).list());
    await Promise.all([
      this.apply(ENDPOINTS, desiredEndpoints(service, nodes), ['subsets']),
      this.apply(ENDPOINT_SLICES, desiredSlice(service, nodes), ['endpoints', 'ports', 'addressType']),
    ]);
  }

  private async apply<T extends Endpoints | EndpointSlice>(
    resource: ResourceRef,
    desired: T,
    fields: readonly (keyof T)[],
  ): Promise<void> {
    const current = this.context.informers
      .listerFor<T>(resource)
      .get(desired.metadata?.namespace ?? '', desired.metadata?.name ?? '');
    const client = this.client.resource<T>(resource);
    if (!current) {
      try {
        await client.create(desired);
      } catch (error) {
        // The cache is behind; the watch event brings a sync that updates it.
        if (!isAlreadyExists(error)) throw error;
      }
      return;
    }
    if (sameContent(current, desired, fields)) return;
    await client.update({
      ...desired,
      metadata: {
        ...current.metadata,
        labels: desired.metadata?.labels,
        ownerReferences: desired.metadata?.ownerReferences,
      },
    });
  }
}

export const clusterDnsController: ControllerDescriptor = {
  name: 'tkube-cluster-dns-controller',
  create: (context) => new ClusterDnsController(context).controller,
};
