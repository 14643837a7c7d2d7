// What the endpoints and endpointslice controllers share (k8s.io/endpointslice/util): which
// services select a pod, which pod changes matter to them, whether a pod belongs in endpoints at
// all, and how a service port resolves to a container port of one pod.
import { isPodReady, isPodTerminal } from '../../api/pod-conditions.js';
import { type LabelSelector, labelSelectorFromSet } from '../../api/selectors/index.js';
import type { ObjectReference, Pod, Service, ServicePort } from '../../api/types/core-v1.generated.js';
import { keyOf, objectOf } from '../../client/controller.js';
import type { EventHandler, Lister } from '../../client/informers/index.js';

/**
 * The service's pod selector; undefined when it has none (such services get their endpoints
 * from elsewhere). An empty map counts as none: the apiserver stores it as absent.
 */
export function serviceSelector(service: Service): LabelSelector | undefined {
  const selector = service.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return undefined;
  return labelSelectorFromSet(selector);
}

/** Keys of the services in the pod's namespace whose selector matches the pod. */
export function servicesSelectingPod(services: Lister<Service>, pod: Pod): Set<string> {
  const keys = new Set<string>();
  const namespace = pod.metadata?.namespace ?? '';
  for (const service of services.list(namespace)) {
    const selector = serviceSelector(service);
    if (selector?.matches(pod.metadata?.labels ?? {})) keys.add(keyOf(service));
  }
  return keys;
}

/** A pod event handler queueing the keys of the services whose endpoints the change may move. */
export function podChangeHandler(
  services: Lister<Service>,
  enqueue: (serviceKey: string) => void,
): EventHandler<Pod> {
  const enqueueAll = (keys: Iterable<string>): void => {
    for (const key of keys) enqueue(key);
  };
  return {
    onAdd: (pod) => enqueueAll(servicesSelectingPod(services, pod)),
    onUpdate: (oldPod, newPod) => enqueueAll(servicesToUpdateOnPodChange(services, oldPod, newPod)),
    onDelete: (deleted) => enqueueAll(servicesSelectingPod(services, objectOf(deleted))),
  };
}

/** Keys of the services a pod update can change the endpoints of (none for a resync). */
export function servicesToUpdateOnPodChange(
  services: Lister<Service>,
  oldPod: Pod,
  newPod: Pod,
): Set<string> {
  if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return new Set();
  const labelsChanged =
    !sameLabels(oldPod.metadata?.labels, newPod.metadata?.labels) ||
    oldPod.spec?.hostname !== newPod.spec?.hostname ||
    oldPod.spec?.subdomain !== newPod.spec?.subdomain;
  const podChanged = podEndpointsChanged(oldPod, newPod);
  if (!podChanged && !labelsChanged) return new Set();
  const current = servicesSelectingPod(services, newPod);
  if (!labelsChanged) return current;
  const previous = servicesSelectingPod(services, oldPod);
  // A changed pod matters to every service of either side; a relabelled one only to the services
  // it joined or left.
  if (podChanged) return new Set([...current, ...previous]);
  const changed = new Set<string>();
  for (const key of current) if (!previous.has(key)) changed.add(key);
  for (const key of previous) if (!current.has(key)) changed.add(key);
  return changed;
}

function podEndpointsChanged(oldPod: Pod, newPod: Pod): boolean {
  if (oldPod.metadata?.deletionTimestamp !== newPod.metadata?.deletionTimestamp) return true;
  if (isPodReady(oldPod) !== isPodReady(newPod)) return true;
  const oldIps = oldPod.status?.podIPs ?? [];
  const newIps = newPod.status?.podIPs ?? [];
  return oldIps.length !== newIps.length || oldIps.some((ip, i) => ip.ip !== newIps[i]!.ip);
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const left = Object.entries(a ?? {});
  return left.length === Object.keys(b ?? {}).length && left.every(([key, value]) => b?.[key] === value);
}

/**
 * Whether a pod gets an address at all: not terminal, has an IP, and is not terminating unless
 * terminating pods are wanted.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (!pod.status?.podIP && !pod.status?.podIPs?.length) return false;
  return includeTerminating || !pod.metadata?.deletionTimestamp;
}

/** A pod's hostname names its endpoint when its subdomain is the service's name. */
export function shouldSetHostname(pod: Pod, service: Service): boolean {
  return (
    !!pod.spec?.hostname &&
    pod.spec.subdomain === service.metadata?.name &&
    pod.metadata?.namespace === service.metadata?.namespace
  );
}

/**
 * The container port a service port targets on this pod: a number as it is, a name looked up
 * in the containers (then the restartable init containers) with the same protocol.
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const container of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return undefined;
}

/** The reference from an address to its pod. */
export function podReference(pod: Pod): ObjectReference {
  return {
    kind: 'Pod',
    namespace: pod.metadata?.namespace,
    name: pod.metadata?.name,
    uid: pod.metadata?.uid,
  };
}

/** The service has a cluster IP (it is not headless). */
export function isServiceIpSet(service: Service): boolean {
  const clusterIp = service.spec?.clusterIP ?? '';
  return clusterIp !== '' && clusterIp !== 'None';
}

/** The label marking the endpoints of headless services. */
export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
/** The annotation carrying the time of the change the endpoints reflect. */
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
