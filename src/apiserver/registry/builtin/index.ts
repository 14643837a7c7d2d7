import type { ResourceInfo } from '../../../api/resources/types.js';
import type { Store } from '../../../storage/index.js';
import { crdStrategy } from '../../apiextensions/crd-strategy.js';
import { makeStrategy, type StatusKeptMetadata, type Strategy } from '../strategy.js';
import { rulesFor } from '../validation/index.js';
import { certificateSigningRequestStrategy } from './certificate-signing-requests.js';
import { daemonSetStrategy } from './daemon-sets.js';
import { SELECTABLE_FIELDS } from './field-selectors.js';
import { jobStrategy } from './jobs.js';
import { namespaceStrategy } from './namespaces.js';
import { podStrategy } from './pods.js';
import { ServiceAllocator, serviceStrategy } from './services.js';

/** Resources whose strategies start metadata.generation at 1 and bump it on spec changes. */
const TRACKS_GENERATION = new Set([
  'apps/Deployment',
  'apps/ReplicaSet',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'batch/Job',
  'batch/CronJob',
  '/ReplicationController',
  'networking.k8s.io/Ingress',
  'discovery.k8s.io/EndpointSlice',
  'networking.k8s.io/NetworkPolicy',
  'policy/PodDisruptionBudget',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
]);

/** Resources that PUT may create (AllowCreateOnUpdate in their strategies). */
const CREATE_ON_UPDATE = new Set([
  '/Endpoints',
  '/Event',
  'coordination.k8s.io/Lease',
  'events.k8s.io/Event',
]);

/**
 * Resources whose strategies refuse an update without metadata.resourceVersion
 * (AllowUnconditionalUpdate() == false); every other built-in allows it.
 */
const CONDITIONAL_UPDATE_ONLY = new Set([
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'internal.apiserver.k8s.io/StorageVersion',
  'certificates.k8s.io/ClusterTrustBundle',
  'coordination.k8s.io/Lease',
  'node.k8s.io/RuntimeClass',
  'policy/PodDisruptionBudget',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/CSIStorageCapacity',
  'storage.k8s.io/VolumeAttachment',
]);

/** ResetObjectMetaForStatus: what the generic rules do not already restore. */
const RESET_FOR_STATUS: readonly StatusKeptMetadata[] = [
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
];

/**
 * Metadata that status writes take from the old object, per status strategy; every other
 * status strategy resets only the spec, so labels and annotations change with the write.
 */
const STATUS_KEEPS_METADATA: Readonly<Record<string, readonly StatusKeptMetadata[] | 'all'>> = {
  '/Pod': ['ownerReferences'],
  'apps/Deployment': ['labels'],
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': RESET_FOR_STATUS,
  'apiregistration.k8s.io/APIService': RESET_FOR_STATUS,
  'internal.apiserver.k8s.io/StorageVersion': RESET_FOR_STATUS,
  'storage.k8s.io/VolumeAttachment': RESET_FOR_STATUS,
  'flowcontrol.apiserver.k8s.io/FlowSchema': 'all',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': 'all',
};

export interface BuiltinStrategies {
  strategyFor(info: ResourceInfo): Strategy;
}

export function builtinStrategies(store: Store): BuiltinStrategies {
  const allocator = new ServiceAllocator(store);
  const overrides: Record<string, Partial<Strategy>> = {
    '/Namespace': namespaceStrategy,
    // Nodes are created with their status: the kubelet registers capacity and addresses at once.
    '/Node': { prepareForCreate: () => {} },
    '/Pod': podStrategy,
    '/Service': serviceStrategy(allocator),
    'apiextensions.k8s.io/CustomResourceDefinition': crdStrategy,
    'apps/DaemonSet': daemonSetStrategy,
    'batch/Job': jobStrategy,
    'certificates.k8s.io/CertificateSigningRequest': certificateSigningRequestStrategy,
  };
  return {
    strategyFor(info) {
      const id = `${info.group}/${info.kind}`;
      const fields = SELECTABLE_FIELDS[id];
      const rules = rulesFor(info.group, info.kind);
      const override = overrides[id] ?? {};
      return makeStrategy(info, {
        tracksGeneration: TRACKS_GENERATION.has(id),
        allowCreateOnUpdate: CREATE_ON_UPDATE.has(id),
        allowUnconditionalUpdate: !CONDITIONAL_UPDATE_ONLY.has(id),
        statusKeepsMetadata: STATUS_KEEPS_METADATA[id] ?? [],
        ...(fields ? { selectableFields: fields } : {}),
        ...(rules?.decodeError ? { decodeError: rules.decodeError } : {}),
        ...(rules?.validateCreate ? { validateCreate: rules.validateCreate } : {}),
        ...(rules?.validateUpdate ? { validateUpdate: rules.validateUpdate } : {}),
        ...override,
        // Kubernetes' SetDefaults_* first, then what the registry strategy adds.
        defaults: (object) => {
          rules?.defaults?.(object);
          override.defaults?.(object);
        },
      });
    },
  };
}
