// Which printer kube-apiserver uses for each built-in group and kind.
import * as admission from './admission.js';
import * as apps from './apps.js';
import * as autoscaling from './autoscaling.js';
import * as batch from './batch.js';
import * as core from './core.js';
import { coreEvents, eventsApiEvents } from './event.js';
import * as flowcontrol from './flowcontrol.js';
import * as networking from './networking.js';
import { nodes } from './node.js';
import * as other from './other.js';
import { pods } from './pod.js';
import * as policy from './policy.js';
import * as rbac from './rbac.js';
import { endpoints, services } from './service.js';
import * as storage from './storage.js';
import type { KindPrinter } from './types.js';
import { persistentVolumeClaims, persistentVolumes } from './volume.js';

/** Printers by group (`''` for core), then kind. */
const PRINTERS: Readonly<Record<string, Readonly<Record<string, KindPrinter>>>> = {
  '': {
    Pod: pods,
    PodTemplate: core.podTemplates,
    ReplicationController: core.replicationControllers,
    Service: services,
    Endpoints: endpoints,
    Node: nodes,
    Event: coreEvents,
    Namespace: core.namespaces,
    Secret: core.secrets,
    ServiceAccount: core.serviceAccounts,
    PersistentVolume: persistentVolumes,
    PersistentVolumeClaim: persistentVolumeClaims,
    ComponentStatus: core.componentStatuses,
    ConfigMap: core.configMaps,
    ResourceQuota: core.resourceQuotas,
  },
  apps: {
    ReplicaSet: apps.replicaSets,
    DaemonSet: apps.daemonSets,
    StatefulSet: apps.statefulSets,
    Deployment: apps.deployments,
    ControllerRevision: apps.controllerRevisions,
  },
  batch: { Job: batch.jobs, CronJob: batch.cronJobs },
  autoscaling: { HorizontalPodAutoscaler: autoscaling.horizontalPodAutoscalers, Scale: autoscaling.scales },
  'networking.k8s.io': {
    Ingress: networking.ingresses,
    IngressClass: networking.ingressClasses,
    NetworkPolicy: networking.networkPolicies,
    ServiceCIDR: networking.serviceCIDRs,
    IPAddress: networking.ipAddresses,
  },
  'discovery.k8s.io': { EndpointSlice: networking.endpointSlices },
  'events.k8s.io': { Event: eventsApiEvents },
  policy: { PodDisruptionBudget: policy.podDisruptionBudgets },
  'rbac.authorization.k8s.io': {
    RoleBinding: rbac.roleBindings,
    ClusterRoleBinding: rbac.clusterRoleBindings,
  },
  'certificates.k8s.io': {
    CertificateSigningRequest: other.certificateSigningRequests,
    ClusterTrustBundle: other.clusterTrustBundles,
  },
  'coordination.k8s.io': { Lease: other.leases, LeaseCandidate: other.leaseCandidates },
  'storage.k8s.io': {
    StorageClass: storage.storageClasses,
    VolumeAttributesClass: storage.volumeAttributesClasses,
    VolumeAttachment: storage.volumeAttachments,
    CSINode: storage.csiNodes,
    CSIDriver: storage.csiDrivers,
    CSIStorageCapacity: storage.csiStorageCapacities,
  },
  'scheduling.k8s.io': { PriorityClass: other.priorityClasses },
  'node.k8s.io': { RuntimeClass: other.runtimeClasses },
  'admissionregistration.k8s.io': {
    MutatingWebhookConfiguration: admission.mutatingWebhookConfigurations,
    ValidatingWebhookConfiguration: admission.validatingWebhookConfigurations,
    ValidatingAdmissionPolicy: admission.validatingAdmissionPolicies,
    ValidatingAdmissionPolicyBinding: admission.validatingAdmissionPolicyBindings,
    MutatingAdmissionPolicy: admission.mutatingAdmissionPolicies,
    MutatingAdmissionPolicyBinding: admission.mutatingAdmissionPolicyBindings,
  },
  'flowcontrol.apiserver.k8s.io': {
    FlowSchema: flowcontrol.flowSchemas,
    PriorityLevelConfiguration: flowcontrol.priorityLevelConfigurations,
  },
  'internal.apiserver.k8s.io': { StorageVersion: other.storageVersions },
  'apiregistration.k8s.io': { APIService: other.apiServices },
  'resource.k8s.io': {
    DeviceClass: other.deviceClasses,
    ResourceClaim: other.resourceClaims,
    ResourceClaimTemplate: other.resourceClaimTemplates,
    ResourceSlice: other.resourceSlices,
  },
  'storagemigration.k8s.io': { StorageVersionMigration: other.storageVersionMigrations },
};

/** The printer of a built-in kind, or undefined when Kubernetes uses the default table for it. */
export function printerFor(group: string, kind: string): KindPrinter | undefined {
  const kinds = Object.hasOwn(PRINTERS, group) ? PRINTERS[group] : undefined;
  return kinds !== undefined && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
}
