// The endpoints controller (pkg/controller/endpoint): one Endpoints object per Service with a
// selector, named like it, listing the selected pods' IPs — ready ones under `addresses`, the
// others under `notReadyAddresses` — with each service port resolved per pod, so a named port
// that maps to different numbers on different pods yields separate subsets. Services without a
// selector keep whatever Endpoints their owner writes; a deleted Service loses its Endpoints.
import { isPodReady } from '../../api/pod-conditions.js';
import type {
  EndpointAddress,
  EndpointPort,
  EndpointSubset,
  Endpoints,
  Pod,
  Service,
} from '../../api/types/core-v1.generated.js';
import { Controller, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import { ENDPOINTS, PODS, SERVICES } from '../../client/resources.js';
import { hasStatusCause, isForbidden, isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import {
  findPort,
  HEADLESS_SERVICE_LABEL,
  isServiceIpSet,
  LAST_CHANGE_TRIGGER_TIME_ANNOTATION,
  podChangeHandler,
  podReference,
  serviceSelector,
  shouldPodBeInEndpoints,
  shouldSetHostname,
} from './pod-membership.js';
import {
  countAddresses,
  MAX_ENDPOINTS_CAPACITY,
  repackSubsets,
  sameSubsets,
  truncateSubsets,
} from './subsets.js';
import { formatTriggerTime, TriggerTimeTracker } from './trigger-time-tracker.js';

const SERVICE_ACCOUNT = 'endpoint-controller';
const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
/** Endpoints kept by leader election (no Service behind them): never cleaned up. */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

export class EndpointsController {
  readonly controller: Controller;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly endpoints: Lister<Endpoints>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  private readonly triggerTimes = new TriggerTimeTracker();
  /** resourceVersions this controller replaced, per key: seeing one again means a stale cache. */
  private readonly staleVersions = new Map<string, string>();

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'endpoint-controller');
    const services = context.informers.informerFor<Service>(SERVICES);
    const pods = context.informers.informerFor<Pod>(PODS);
    const endpoints = context.informers.informerFor<Endpoints>(ENDPOINTS);
    this.services = services.lister;
    this.pods = pods.lister;
    this.endpoints = endpoints.lister;
    this.controller = new Controller({
      name: 'endpoint',
      sync: (key) => this.sync(key),
      workers: 5,
      waitFor: [pods, endpoints],
    });
    this.controller.watch(services);
    pods.addEventHandler(podChangeHandler(this.services, (key) => this.controller.enqueueKey(key)));
    // Endpoints left over from services deleted while the controller was away are found in the
    // first list; later, only a deletion needs a look (the service may want them back).
    endpoints.addEventHandler({
      onAdd: (object, isInInitialList) => {
        if (isInInitialList && !object.metadata?.annotations?.[LEADER_ANNOTATION])
          this.controller.enqueue(object);
      },
      onDelete: (deleted) => this.controller.enqueue(deleted),
    });
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const service = this.services.get(namespace, name);
    if (!service) {
      try {
        await this.client.resource<Endpoints>(ENDPOINTS).delete(namespace, name);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      this.triggerTimes.deleteService(namespace, name);
      this.staleVersions.delete(key);
      return;
    }
    if (service.spec?.type === 'ExternalName') return;
    const selector = serviceSelector(service);
    if (!selector) return;

    const pods = this.pods.list(namespace, selector);
    const triggerTime = this.triggerTimes.compute(namespace, service, pods);
    const subsets = repackSubsets(this.desiredSubsets(service, pods));

    let current = this.endpoints.get(namespace, name);
    if (current && this.staleVersions.get(key) === current.metadata?.resourceVersion) {
      throw new Error(
        `endpoints informer cache is out of date, resource version ${current.metadata?.resourceVersion} already processed for endpoints ${key}`,
      );
    }
    const create = !current?.metadata?.resourceVersion;
    current ??= { metadata: { name, labels: service.metadata?.labels } };
    const currentLabels = { ...current.metadata?.labels };
    delete currentLabels[HEADLESS_SERVICE_LABEL];
    if (
      !create &&
      sameSubsets(current.subsets, subsets) &&
      sameLabelMaps(currentLabels, service.metadata?.labels) &&
      capacityAnnotationCorrect(current)
    ) {
      return;
    }

    const annotations = { ...current.metadata?.annotations };
    if (triggerTime !== undefined)
      annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = formatTriggerTime(triggerTime);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
    if (truncateSubsets(subsets)) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    const labels = { ...service.metadata?.labels };
    if (isServiceIpSet(service)) delete labels[HEADLESS_SERVICE_LABEL];
    else labels[HEADLESS_SERVICE_LABEL] = '';
    const desired: Endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        ...current.metadata,
        name,
        namespace,
        labels: nonEmpty(labels),
        annotations: nonEmpty(annotations),
      },
      // No subsets at all is written as none, as Go's omitempty does.
      ...(subsets.length > 0 ? { subsets } : {}),
    };

    const endpoints = this.client.resource<Endpoints>(ENDPOINTS);
    try {
      if (create) {
        await endpoints.create(desired);
      } else {
        const updated = await endpoints.update(desired);
        // Some writes change nothing and keep the version; only a new one makes the old stale.
        if (updated.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
          this.staleVersions.set(key, current.metadata?.resourceVersion ?? '');
        }
      }
    } catch (error) {
      // Creates in a terminating namespace keep failing: drop the key.
      if (create && isForbidden(error) && hasStatusCause(error, 'NamespaceTerminating')) return;
      const message = error instanceof Error ? error.message : String(error);
      if (create) {
        this.recorder.event(
          desired,
          'Warning',
          'FailedToCreateEndpoint',
          `Failed to create endpoint for service ${key}: ${message}`,
        );
      } else {
        this.recorder.event(
          desired,
          'Warning',
          'FailedToUpdateEndpoint',
          `Failed to update endpoint ${key}: ${message}`,
        );
      }
      throw error;
    }
  }

  /** One single-address subset per pod and port; repacking merges them. */
  private desiredSubsets(service: Service, pods: readonly Pod[]): EndpointSubset[] {
    const publishNotReady = service.spec?.publishNotReadyAddresses === true;
    const servicePorts = service.spec?.ports ?? [];
    const subsets: EndpointSubset[] = [];
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
      const address = podAddress(service, pod);
      if (!address) continue;
      const ready = publishNotReady || isPodReady(pod);
      const add = (ports: EndpointPort[]) =>
        subsets.push(ready ? { addresses: [address], ports } : { notReadyAddresses: [address], ports });
      if (servicePorts.length === 0) {
        // Headless services may have no ports: their pods are listed without any.
        if (service.spec?.clusterIP === 'None') add([]);
        continue;
      }
      for (const servicePort of servicePorts) {
        const port = findPort(pod, servicePort);
        if (port === undefined) continue;
        add([
          {
            ...(servicePort.name ? { name: servicePort.name } : {}),
            port,
            protocol: servicePort.protocol ?? 'TCP',
            ...(servicePort.appProtocol ? { appProtocol: servicePort.appProtocol } : {}),
          },
        ]);
      }
    }
    return subsets;
  }
}

/** The pod's address in the service's (first) IP family, or undefined when it has none. */
function podAddress(service: Service, pod: Pod): EndpointAddress | undefined {
  const family = service.spec?.ipFamilies?.[0] ?? familyFromService(service, pod);
  const ips = pod.status?.podIPs?.length ? pod.status.podIPs.map((ip) => ip.ip) : [pod.status?.podIP ?? ''];
  const ip = ips.find(
    (candidate) => candidate !== '' && (candidate.includes(':') ? 'IPv6' : 'IPv4') === family,
  );
  if (ip === undefined) return undefined;
  return {
    ip,
    ...(shouldSetHostname(pod, service) ? { hostname: pod.spec?.hostname } : {}),
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    targetRef: podReference(pod),
  };
}

/** Services stored before IP families existed: the cluster IP's family, or the pod IP's. */
function familyFromService(service: Service, pod: Pod): string {
  const clusterIp = service.spec?.clusterIP ?? '';
  const reference = clusterIp && clusterIp !== 'None' ? clusterIp : (pod.status?.podIP ?? '');
  return reference.includes(':') ? 'IPv6' : 'IPv4';
}

function sameLabelMaps(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean {
  const left = Object.entries(a ?? {});
  return left.length === Object.keys(b ?? {}).length && left.every(([key, value]) => b?.[key] === value);
}

/** Empty maps are left out, as Go's omitempty does. */
function nonEmpty(map: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(map).length > 0 ? map : undefined;
}

/** False when the addresses exceed the cap (they must be cut) or the annotation is set for nothing. */
function capacityAnnotationCorrect(endpoints: Endpoints): boolean {
  if (countAddresses(endpoints.subsets) > MAX_ENDPOINTS_CAPACITY) return false;
  return endpoints.metadata?.annotations?.[OVER_CAPACITY_ANNOTATION] === undefined;
}

export const endpointsController: ControllerDescriptor = {
  name: 'endpoint-controller',
  create: (context) => new EndpointsController(context).controller,
};
