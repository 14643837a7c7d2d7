// Defaults of pods and pod templates (pkg/apis/core/v1 SetDefaults_Pod, SetDefaults_PodSpec,
// SetDefaults_Container, the volume-source defaults and the generated zero-value defaults).
import { isJsonObject, type JsonObject } from '../object.js';
import { defaultPullPolicy } from './image-reference.js';
import { canonicalizeQuantity, defaultResourceList } from './quantities.js';

/** The file mode secret, configMap, downwardAPI and projected volumes default to (0644). */
const DEFAULT_FILE_MODE = 0o644;

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function child(parent: JsonObject, key: string): JsonObject | undefined {
  const value = parent[key];
  return isJsonObject(value) ? value : undefined;
}

function setIfUnset(target: JsonObject, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

function setIfEmpty(target: JsonObject, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null || target[key] === '') target[key] = value;
}

function defaultHttpGet(handler: JsonObject | undefined): void {
  const httpGet = handler === undefined ? undefined : child(handler, 'httpGet');
  if (httpGet === undefined) return;
  setIfEmpty(httpGet, 'path', '/');
  setIfEmpty(httpGet, 'scheme', 'HTTP');
}

function defaultProbe(probe: JsonObject | undefined): void {
  if (probe === undefined) return;
  for (const [key, value] of [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ] as const) {
    if (probe[key] === undefined || probe[key] === null || probe[key] === 0) probe[key] = value;
  }
  defaultHttpGet(probe);
  const grpc = child(probe, 'grpc');
  if (grpc !== undefined) setIfUnset(grpc, 'service', '');
}

function defaultFieldRef(holder: JsonObject): void {
  const fieldRef = child(holder, 'fieldRef');
  if (fieldRef !== undefined) setIfEmpty(fieldRef, 'apiVersion', 'v1');
}

/** SetDefaults_Container and the generated defaults of a container's parts. */
export function defaultContainer(container: JsonObject): void {
  if (
    container.imagePullPolicy === undefined ||
    container.imagePullPolicy === null ||
    container.imagePullPolicy === ''
  ) {
    container.imagePullPolicy = defaultPullPolicy(typeof container.image === 'string' ? container.image : '');
  }
  setIfEmpty(container, 'terminationMessagePath', '/dev/termination-log');
  setIfEmpty(container, 'terminationMessagePolicy', 'File');
  for (const port of objects(container.ports)) setIfEmpty(port, 'protocol', 'TCP');
  for (const variable of objects(container.env)) {
    const valueFrom = child(variable, 'valueFrom');
    if (valueFrom !== undefined) {
      defaultFieldRef(valueFrom);
      const resourceRef = child(valueFrom, 'resourceFieldRef');
      if (resourceRef !== undefined) canonicalizeQuantity(resourceRef, 'divisor');
    }
  }
  // ResourceRequirements is a struct, not a pointer: Go always writes `resources: {}`.
  const resources = child(container, 'resources') ?? {};
  container.resources = resources;
  defaultResourceList(resources, 'limits');
  defaultResourceList(resources, 'requests');
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
    defaultProbe(child(container, probe));
  const lifecycle = child(container, 'lifecycle');
  if (lifecycle !== undefined) {
    defaultHttpGet(child(lifecycle, 'postStart'));
    defaultHttpGet(child(lifecycle, 'preStop'));
  }
}

const VOLUME_SOURCE_KEYS = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

function defaultDownwardApiItems(source: JsonObject): void {
  for (const item of objects(source.items)) {
    defaultFieldRef(item);
    const resourceRef = child(item, 'resourceFieldRef');
    if (resourceRef !== undefined) canonicalizeQuantity(resourceRef, 'divisor');
  }
}

/** SetDefaults_Volume and the defaults of each volume source. */
export function defaultVolume(volume: JsonObject): void {
  if (!VOLUME_SOURCE_KEYS.some((key) => isJsonObject(volume[key]))) volume.emptyDir = {};
  const emptyDir = child(volume, 'emptyDir');
  if (emptyDir !== undefined) canonicalizeQuantity(emptyDir, 'sizeLimit');
  const hostPath = child(volume, 'hostPath');
  if (hostPath !== undefined) setIfUnset(hostPath, 'type', '');
  for (const key of ['secret', 'configMap']) {
    const source = child(volume, key);
    if (source !== undefined) setIfUnset(source, 'defaultMode', DEFAULT_FILE_MODE);
  }
  const downward = child(volume, 'downwardAPI');
  if (downward !== undefined) {
    setIfUnset(downward, 'defaultMode', DEFAULT_FILE_MODE);
    defaultDownwardApiItems(downward);
  }
  const projected = child(volume, 'projected');
  if (projected !== undefined) {
    setIfUnset(projected, 'defaultMode', DEFAULT_FILE_MODE);
    for (const source of objects(projected.sources)) {
      const downwardSource = child(source, 'downwardAPI');
      if (downwardSource !== undefined) defaultDownwardApiItems(downwardSource);
      const token = child(source, 'serviceAccountToken');
      if (token !== undefined) setIfUnset(token, 'expirationSeconds', 3600);
    }
  }
  const iscsi = child(volume, 'iscsi');
  if (iscsi !== undefined) setIfEmpty(iscsi, 'iscsiInterface', 'default');
  const rbd = child(volume, 'rbd');
  if (rbd !== undefined) defaultRbd(rbd);
  const azureDisk = child(volume, 'azureDisk');
  if (azureDisk !== undefined) defaultAzureDisk(azureDisk);
  const scaleIO = child(volume, 'scaleIO');
  if (scaleIO !== undefined) defaultScaleIO(scaleIO);
  const template = child(child(volume, 'ephemeral') ?? {}, 'volumeClaimTemplate');
  if (template !== undefined) {
    // PersistentVolumeClaimTemplate's ObjectMeta is a struct: Go writes its zero creationTimestamp.
    if (!isJsonObject(template.metadata)) template.metadata = {};
    const meta = template.metadata as JsonObject;
    if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  }
  const claimSpec = template === undefined ? undefined : child(template, 'spec');
  if (claimSpec !== undefined) defaultPersistentVolumeClaimSpec(claimSpec);
}

export function defaultRbd(rbd: JsonObject): void {
  setIfEmpty(rbd, 'pool', 'rbd');
  setIfEmpty(rbd, 'user', 'admin');
  setIfEmpty(rbd, 'keyring', '/etc/ceph/keyring');
}

export function defaultAzureDisk(disk: JsonObject): void {
  setIfUnset(disk, 'cachingMode', 'ReadWrite');
  setIfUnset(disk, 'fsType', 'ext4');
  setIfUnset(disk, 'readOnly', false);
  setIfUnset(disk, 'kind', 'Shared');
}

export function defaultScaleIO(scaleIO: JsonObject): void {
  setIfEmpty(scaleIO, 'storageMode', 'ThinProvisioned');
  setIfEmpty(scaleIO, 'fsType', 'xfs');
}

/** SetDefaults_PersistentVolumeClaimSpec and its resource lists. */
export function defaultPersistentVolumeClaimSpec(spec: JsonObject): void {
  setIfUnset(spec, 'volumeMode', 'Filesystem');
  const resources = child(spec, 'resources');
  if (resources !== undefined) {
    defaultResourceList(resources, 'limits');
    defaultResourceList(resources, 'requests');
  }
}

/** SetDefaults_PodSpec plus the defaults of volumes and containers: what every pod template gets. */
export function defaultPodSpec(spec: JsonObject): void {
  setIfEmpty(spec, 'dnsPolicy', 'ClusterFirst');
  setIfEmpty(spec, 'restartPolicy', 'Always');
  setIfUnset(spec, 'securityContext', {});
  setIfUnset(spec, 'terminationGracePeriodSeconds', 30);
  setIfEmpty(spec, 'schedulerName', 'default-scheduler');
  for (const volume of objects(spec.volumes)) defaultVolume(volume);
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const container of objects(spec[key])) defaultContainer(container);
  }
  defaultResourceList(spec, 'overhead');
}

/** Requests default to limits for each resource with a limit and no request (pods only). */
function defaultRequestsFromLimits(container: JsonObject): void {
  const resources = child(container, 'resources');
  const limits = resources === undefined ? undefined : child(resources, 'limits');
  if (resources === undefined || limits === undefined) return;
  const requests = child(resources, 'requests') ?? {};
  for (const [name, value] of Object.entries(limits))
    if (!Object.hasOwn(requests, name)) requests[name] = value;
  resources.requests = requests;
}

/** SetObjectDefaults_Pod. */
export function defaultPod(pod: JsonObject): void {
  const spec = child(pod, 'spec');
  if (spec === undefined) {
    pod.spec = {};
    defaultPod(pod);
    return;
  }
  for (const key of ['containers', 'initContainers'])
    for (const container of objects(spec[key])) defaultRequestsFromLimits(container);
  setIfUnset(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    for (const key of ['containers', 'initContainers']) {
      for (const container of objects(spec[key])) {
        for (const port of objects(container.ports)) {
          if (port.hostPort === undefined || port.hostPort === null || port.hostPort === 0)
            port.hostPort = port.containerPort;
        }
      }
    }
  }
  defaultPodSpec(spec);
}

/** The defaults of a PodTemplateSpec embedded in a workload (no pod-only defaults). */
export function defaultPodTemplate(template: unknown): void {
  if (!isJsonObject(template)) return;
  // The template's ObjectMeta is a struct: Go writes its zero creationTimestamp as null.
  if (!isJsonObject(template.metadata)) template.metadata = {};
  setIfUnset(template.metadata as JsonObject, 'creationTimestamp', null);
  if (!isJsonObject(template.spec)) template.spec = {};
  defaultPodSpec(template.spec as JsonObject);
}
