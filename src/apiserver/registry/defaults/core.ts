// Defaults of the core (v1) kinds other than pods: what decoding and pkg/apis/core/v1 defaulting
// do to an object before it is validated.

import {
  defaultAzureDisk,
  defaultPersistentVolumeClaimSpec,
  defaultPodTemplate,
  defaultRbd,
  defaultScaleIO,
} from '../../../api/defaults/pod.js';
import { defaultResourceList } from '../../../api/defaults/quantities.js';
import { isJsonObject, type JsonObject } from '../../../api/object.js';

function child(parent: JsonObject, key: string): JsonObject | undefined {
  const value = parent[key];
  return isJsonObject(value) ? value : undefined;
}

function ensure(parent: JsonObject, key: string): JsonObject {
  const existing = child(parent, key);
  if (existing !== undefined) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function empty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** SetDefaults_Namespace: the `kubernetes.io/metadata.name` label; status.phase Active. */
export function defaultNamespace(namespace: JsonObject): void {
  const meta = ensure(namespace, 'metadata');
  if (typeof meta.name === 'string' && meta.name !== '') {
    const labels = ensure(meta, 'labels');
    labels['kubernetes.io/metadata.name'] = meta.name;
  }
  const status = ensure(namespace, 'status');
  if (empty(status.phase)) status.phase = 'Active';
}

/**
 * Decoding a v1 Secret merges `stringData` into `data` (base64, overwriting) and drops it; then
 * SetDefaults_Secret makes the type Opaque.
 */
export function defaultSecret(secret: JsonObject): void {
  const stringData = secret.stringData;
  if (isJsonObject(stringData)) {
    const data = child(secret, 'data') ?? {};
    for (const [key, value] of Object.entries(stringData)) {
      data[key] = Buffer.from(typeof value === 'string' ? value : '', 'utf8').toString('base64');
    }
    secret.data = data;
  }
  delete secret.stringData;
  if (empty(secret.type)) secret.type = 'Opaque';
}

/** DefaultClientIPServiceAffinitySeconds. */
const CLIENT_IP_AFFINITY_SECONDS = 10800;

/** SetDefaults_Service. */
export function defaultService(service: JsonObject): void {
  const spec = ensure(service, 'spec');
  if (empty(spec.sessionAffinity)) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = child(child(spec, 'sessionAffinityConfig') ?? {}, 'clientIP')?.timeoutSeconds;
    if (typeof timeout !== 'number')
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: CLIENT_IP_AFFINITY_SECONDS } };
  }
  if (empty(spec.type)) spec.type = 'ClusterIP';
  for (const port of objects(spec.ports)) {
    if (empty(port.protocol)) port.protocol = 'TCP';
    if (
      port.targetPort === undefined ||
      port.targetPort === null ||
      port.targetPort === 0 ||
      port.targetPort === ''
    ) {
      port.targetPort = typeof port.port === 'number' ? port.port : 0;
    }
  }
  const type = spec.type;
  // Only node ports take external traffic policy defaults (ClusterIPs with externalIPs no longer do).
  if ((type === 'LoadBalancer' || type === 'NodePort') && empty(spec.externalTrafficPolicy))
    spec.externalTrafficPolicy = 'Cluster';
  if (
    (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) &&
    typeof type === 'string'
  ) {
    if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(type)) spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null) {
      spec.allocateLoadBalancerNodePorts = true;
    }
    const status = child(service, 'status');
    const loadBalancer = status === undefined ? undefined : child(status, 'loadBalancer');
    for (const ingress of objects(loadBalancer?.ingress)) {
      if (!empty(ingress.ip) && (ingress.ipMode === undefined || ingress.ipMode === null))
        ingress.ipMode = 'VIP';
    }
  }
}

/** SetDefaults_Endpoints: ports default to TCP. */
export function defaultEndpoints(endpoints: JsonObject): void {
  for (const subset of objects(endpoints.subsets)) {
    for (const port of objects(subset.ports)) if (empty(port.protocol)) port.protocol = 'TCP';
  }
}

/** SetObjectDefaults_PersistentVolume. */
export function defaultPersistentVolume(volume: JsonObject): void {
  const spec = ensure(volume, 'spec');
  const status = ensure(volume, 'status');
  if (empty(status.phase)) status.phase = 'Pending';
  if (empty(spec.persistentVolumeReclaimPolicy)) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  defaultResourceList(spec, 'capacity');
  const hostPath = child(spec, 'hostPath');
  if (hostPath !== undefined && (hostPath.type === undefined || hostPath.type === null)) hostPath.type = '';
  const rbd = child(spec, 'rbd');
  if (rbd !== undefined) defaultRbd(rbd);
  const iscsi = child(spec, 'iscsi');
  if (iscsi !== undefined && empty(iscsi.iscsiInterface)) iscsi.iscsiInterface = 'default';
  const azureDisk = child(spec, 'azureDisk');
  if (azureDisk !== undefined) defaultAzureDisk(azureDisk);
  const scaleIO = child(spec, 'scaleIO');
  if (scaleIO !== undefined) defaultScaleIO(scaleIO);
}

/** SetObjectDefaults_PersistentVolumeClaim. */
export function defaultPersistentVolumeClaim(claim: JsonObject): void {
  const spec = ensure(claim, 'spec');
  const status = ensure(claim, 'status');
  if (empty(status.phase)) status.phase = 'Pending';
  defaultPersistentVolumeClaimSpec(spec);
  defaultResourceList(status, 'capacity');
  defaultResourceList(status, 'allocatedResources');
}

/** SetDefaults_LimitRangeItem (container defaults from max/min) and rounding of every list. */
export function defaultLimitRange(limitRange: JsonObject): void {
  for (const item of objects(child(limitRange, 'spec')?.limits)) {
    if (item.type === 'Container') {
      const defaults = ensure(item, 'default');
      const defaultRequests = ensure(item, 'defaultRequest');
      for (const [name, value] of Object.entries(child(item, 'max') ?? {})) {
        if (!Object.hasOwn(defaults, name)) defaults[name] = value;
      }
      for (const [name, value] of Object.entries(defaults)) {
        if (!Object.hasOwn(defaultRequests, name)) defaultRequests[name] = value;
      }
      for (const [name, value] of Object.entries(child(item, 'min') ?? {})) {
        if (!Object.hasOwn(defaultRequests, name)) defaultRequests[name] = value;
      }
    }
    for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'])
      defaultResourceList(item, key);
  }
}

/** ResourceQuota: every quantity is canonicalized and rounded as a ResourceList. */
export function defaultResourceQuota(quota: JsonObject): void {
  const spec = child(quota, 'spec');
  if (spec !== undefined) defaultResourceList(spec, 'hard');
  const status = child(quota, 'status');
  if (status !== undefined) {
    defaultResourceList(status, 'hard');
    defaultResourceList(status, 'used');
  }
}

/** SetDefaults_NodeStatus: allocatable defaults to capacity. */
export function defaultNode(node: JsonObject): void {
  const status = child(node, 'status');
  if (status === undefined) return;
  if (!isJsonObject(status.allocatable) && isJsonObject(status.capacity))
    status.allocatable = { ...status.capacity };
  defaultResourceList(status, 'capacity');
  defaultResourceList(status, 'allocatable');
}

/** SetDefaults_ReplicationController: selector and labels from the template; replicas 1. */
export function defaultReplicationController(controller: JsonObject): void {
  const spec = ensure(controller, 'spec');
  const template = child(spec, 'template');
  const labels = template === undefined ? undefined : child(ensure(template, 'metadata'), 'labels');
  if (labels !== undefined) {
    if (!isJsonObject(spec.selector) || Object.keys(spec.selector).length === 0)
      spec.selector = { ...labels };
    const meta = ensure(controller, 'metadata');
    if (!isJsonObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (template !== undefined) defaultPodTemplate(template);
}

/** SetObjectDefaults_PodTemplate. */
export function defaultPodTemplateObject(podTemplate: JsonObject): void {
  defaultPodTemplate(ensure(podTemplate, 'template'));
}
