// The status half of tkube's ingress controller (ingress-nginx's status syncer with
// `--publish-service`): every Ingress the agents serve (its class's controller is
// `tkube.dev/ingress`, or it names no class while `tkube` is the only default) gets the
// LoadBalancer addresses of `kube-system/tkube-ingress` in `status.loadBalancer.ingress`;
// Ingresses of other controllers are left alone. Run once in the control plane, so the agents
// on every node do not race each other for the same write. It also makes the LoadBalancer
// service `kube-system/tkube-ingress` when the first such Ingress appears.
import {
  INGRESS_HTTP_PORT,
  INGRESS_HTTPS_PORT,
  INGRESS_SERVICE,
  INGRESS_SERVICE_NAMESPACE,
  servedByTkube,
} from '../../api/ingress.js';
import type { Service } from '../../api/types/core-v1.generated.js';
import type {
  Ingress,
  IngressClass,
  IngressLoadBalancerIngress,
} from '../../api/types/networking-v1.generated.js';
import { Controller } from '../../client/controller.js';
import { INGRESS_CLASSES, INGRESSES, SERVICES } from '../../client/resources.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';

export const INGRESS_STATUS_SERVICE_ACCOUNT = 'ingress-status-controller';

/** The addresses to publish: the service's load balancer ingress points, IPs and hostnames only. */
export function publishedAddresses(service: Service | undefined): IngressLoadBalancerIngress[] {
  return (service?.status?.loadBalancer?.ingress ?? []).map((point) => ({
    ...(point.ip && { ip: point.ip }),
    ...(point.hostname && { hostname: point.hostname }),
  }));
}

/**
 * The ingress controller's entry from outside, as ingress-nginx's controller service: of type
 * LoadBalancer without a selector, its endpoints the agents (kept by the cluster-dns controller).
 * Made with the first Ingress the agents serve, so a cluster without Ingresses keeps its
 * LoadBalancer addresses for its own services; kept afterwards. `externalTrafficPolicy: Local`, as
 * ingress-nginx's cloud manifest sets it: every node runs an agent, so the node holding the
 * address serves what reaches it and pods' requests go to an agent unmasqueraded; the proxy sees
 * the client's own address (X-Forwarded-For, X-Real-IP), and no connection pays a source NAT
 * (with Cluster, a new connection through the address cost ~0.3 ms more node CPU than one to an
 * agent at its node's address; with Local about the same as that: bench:network's ingress part).
 * Pods' requests to the address take the cluster policy (as kube-proxy sends pod traffic for
 * external destinations), so `trafficDistribution: PreferSameNode` keeps each on its own node's
 * agent: a request no longer crosses to another node and back before reaching its backend.
 */
export function ingressService(): Service {
  const port = (name: string, number: number) => ({
    name,
    port: number,
    protocol: 'TCP',
    targetPort: number,
  });
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: INGRESS_SERVICE,
      namespace: INGRESS_SERVICE_NAMESPACE,
      labels: { 'app.kubernetes.io/name': 'tkube-ingress', 'app.kubernetes.io/managed-by': 'tkube' },
    },
    spec: {
      type: 'LoadBalancer',
      ports: [port('http', INGRESS_HTTP_PORT), port('https', INGRESS_HTTPS_PORT)],
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      externalTrafficPolicy: 'Local',
      trafficDistribution: 'PreferSameNode',
      allocateLoadBalancerNodePorts: true,
    },
  };
}

export class IngressStatusController {
  readonly controller: Controller;
  private readonly client: Client;

  constructor(private readonly context: ControllerContext) {
    this.client = context.clientFor(INGRESS_STATUS_SERVICE_ACCOUNT);
    this.controller = new Controller({ name: 'ingress-status', sync: (key) => this.sync(key) });
    const ingresses = context.informers.informerFor<Ingress>(INGRESSES);
    const all = () => ingresses.lister.list().map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`);
    this.controller.watch(ingresses, (i) => `${i.metadata?.namespace}/${i.metadata?.name}`);
    this.controller.watch(context.informers.informerFor<IngressClass>(INGRESS_CLASSES), all);
    this.controller.watch(context.informers.informerFor<Service>(SERVICES), (service) =>
      service.metadata?.namespace === INGRESS_SERVICE_NAMESPACE && service.metadata.name === INGRESS_SERVICE
        ? all()
        : undefined,
    );
  }

  async sync(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const ingress = this.context.informers.listerFor<Ingress>(INGRESSES).get(namespace, name);
    if (!ingress || ingress.metadata?.deletionTimestamp) return;
    const classes = this.context.informers.listerFor<IngressClass>(INGRESS_CLASSES).list();
    if (!servedByTkube(ingress, classes)) return;
    const service = this.context.informers
      .listerFor<Service>(SERVICES)
      .get(INGRESS_SERVICE_NAMESPACE, INGRESS_SERVICE);
    if (!service) {
      try {
        await this.client.resource<Service>(SERVICES).create(ingressService());
      } catch (error) {
        // The cache is behind; its watch event brings the next sync.
        if (!isAlreadyExists(error)) throw error;
      }
      return;
    }
    const addresses = publishedAddresses(service);
    const current = ingress.status?.loadBalancer?.ingress ?? [];
    if (JSON.stringify(current) === JSON.stringify(addresses)) return;
    try {
      await this.client.resource<Ingress>(INGRESSES).updateStatus({
        ...ingress,
        status: { ...ingress.status, loadBalancer: addresses.length > 0 ? { ingress: addresses } : {} },
      });
    } catch (error) {
      // Deleted meanwhile: nothing to publish.
      if (!isNotFound(error)) throw error;
    }
  }
}

export const ingressStatusController: ControllerDescriptor = {
  name: 'tkube-ingress-status-controller',
  create: (context) => new IngressStatusController(context).controller,
};
