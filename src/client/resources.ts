// The built-in resources controllers, the scheduler and the agent address, as ResourceRefs
// taken from the built-in resource table (so group, version, kind and scope cannot drift).
import { findResource } from '../api/resources/lookup.js';
import type { ResourceRef } from './types.js';

/** The built-in `resource` of `group`/`version`, if the apiserver serves it. */
export function findBuiltinResource(
  group: string,
  version: string,
  resource: string,
): ResourceRef | undefined {
  const info = findResource(group, version, resource);
  return info && Object.freeze({ group, version, resource, kind: info.kind, namespaced: info.namespaced });
}

function builtin(group: string, version: string, resource: string): ResourceRef {
  const ref = findBuiltinResource(group, version, resource);
  if (!ref) throw new Error(`no built-in resource ${resource} in ${group || 'core'}/${version}`);
  return ref;
}

/** apiextensions.k8s.io/v1: what controllers read to act on custom resources too. */
export const CUSTOM_RESOURCE_DEFINITIONS = builtin('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');

// core/v1
export const PODS = builtin('', 'v1', 'pods');
export const NODES = builtin('', 'v1', 'nodes');
export const NAMESPACES = builtin('', 'v1', 'namespaces');
export const SERVICES = builtin('', 'v1', 'services');
export const ENDPOINTS = builtin('', 'v1', 'endpoints');
export const EVENTS = builtin('', 'v1', 'events');
export const SECRETS = builtin('', 'v1', 'secrets');
export const CONFIG_MAPS = builtin('', 'v1', 'configmaps');
export const SERVICE_ACCOUNTS = builtin('', 'v1', 'serviceaccounts');
export const PVCS = builtin('', 'v1', 'persistentvolumeclaims');
export const PVS = builtin('', 'v1', 'persistentvolumes');
export const REPLICATION_CONTROLLERS = builtin('', 'v1', 'replicationcontrollers');
export const RESOURCE_QUOTAS = builtin('', 'v1', 'resourcequotas');
export const LIMIT_RANGES = builtin('', 'v1', 'limitranges');

// apps/v1, batch/v1, autoscaling/v2, policy/v1
export const DEPLOYMENTS = builtin('apps', 'v1', 'deployments');
export const REPLICA_SETS = builtin('apps', 'v1', 'replicasets');
export const DAEMON_SETS = builtin('apps', 'v1', 'daemonsets');
export const STATEFUL_SETS = builtin('apps', 'v1', 'statefulsets');
export const CONTROLLER_REVISIONS = builtin('apps', 'v1', 'controllerrevisions');
export const JOBS = builtin('batch', 'v1', 'jobs');
export const CRON_JOBS = builtin('batch', 'v1', 'cronjobs');
export const HPAS = builtin('autoscaling', 'v2', 'horizontalpodautoscalers');
export const PDBS = builtin('policy', 'v1', 'poddisruptionbudgets');

// networking
export const INGRESSES = builtin('networking.k8s.io', 'v1', 'ingresses');
export const INGRESS_CLASSES = builtin('networking.k8s.io', 'v1', 'ingressclasses');

// discovery, events, coordination, certificates, scheduling, node
export const ENDPOINT_SLICES = builtin('discovery.k8s.io', 'v1', 'endpointslices');
export const EVENTS_V1 = builtin('events.k8s.io', 'v1', 'events');
export const LEASES = builtin('coordination.k8s.io', 'v1', 'leases');
export const CSRS = builtin('certificates.k8s.io', 'v1', 'certificatesigningrequests');
export const PRIORITY_CLASSES = builtin('scheduling.k8s.io', 'v1', 'priorityclasses');
export const RUNTIME_CLASSES = builtin('node.k8s.io', 'v1', 'runtimeclasses');

// storage.k8s.io/v1
export const STORAGE_CLASSES = builtin('storage.k8s.io', 'v1', 'storageclasses');
export const CSI_NODES = builtin('storage.k8s.io', 'v1', 'csinodes');
export const CSI_DRIVERS = builtin('storage.k8s.io', 'v1', 'csidrivers');
export const VOLUME_ATTACHMENTS = builtin('storage.k8s.io', 'v1', 'volumeattachments');

// rbac.authorization.k8s.io/v1
export const ROLES = builtin('rbac.authorization.k8s.io', 'v1', 'roles');
export const ROLE_BINDINGS = builtin('rbac.authorization.k8s.io', 'v1', 'rolebindings');
export const CLUSTER_ROLES = builtin('rbac.authorization.k8s.io', 'v1', 'clusterroles');
export const CLUSTER_ROLE_BINDINGS = builtin('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings');

// create-only reviews (the kubelet authenticates and authorizes callers of its API with them)
export const TOKEN_REVIEWS = builtin('authentication.k8s.io', 'v1', 'tokenreviews');
export const SUBJECT_ACCESS_REVIEWS = builtin('authorization.k8s.io', 'v1', 'subjectaccessreviews');
