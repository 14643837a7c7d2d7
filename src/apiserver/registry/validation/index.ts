// The defaulting and validation of the built-in kinds, keyed "<group>/<Kind>" ('' group for core):
// what kube-apiserver does between decoding a request and storing the object.

import { defaultPod } from '../../../api/defaults/pod.js';
import type { KubeObject } from '../../../api/object.js';
import type { FieldError } from '../../../api/selectors/index.js';
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultReplicaSet,
  defaultStatefulSet,
} from '../defaults/apps.js';
import {
  defaultEndpoints,
  defaultLimitRange,
  defaultNamespace,
  defaultNode,
  defaultPersistentVolume,
  defaultPersistentVolumeClaim,
  defaultPodTemplateObject,
  defaultReplicationController,
  defaultResourceQuota,
  defaultSecret,
  defaultService,
} from '../defaults/core.js';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDaemonSetUpdate,
  validateDeployment,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateReplicaSetUpdate,
  validateStatefulSet,
  validateStatefulSetUpdate,
} from './apps/workloads.js';
import { validateConfigMap, validateConfigMapUpdate } from './core/config-map.js';
import { validateEndpoints, validateEndpointsUpdate } from './core/endpoints.js';
import {
  validateCoreEvent,
  validateCoreEventUpdate,
  validateEventsApiEvent,
  validateEventsApiEventUpdate,
} from './core/event.js';
import { validateLimitRange, validateLimitRangeUpdate } from './core/limit-range.js';
import { validateNamespace, validateNamespaceUpdate } from './core/namespace.js';
import { validateNode, validateNodeUpdate } from './core/node.js';
import {
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeUpdate,
} from './core/persistent-volume.js';
import { validatePodTemplate, validatePodTemplateUpdate } from './core/pod-template.js';
import {
  validateReplicationController,
  validateReplicationControllerUpdate,
} from './core/replication-controller.js';
import { validateResourceQuota, validateResourceQuotaUpdate } from './core/resource-quota.js';
import { validateSecret, validateSecretUpdate } from './core/secret.js';
import { validateService, validateServiceUpdate } from './core/service.js';
import { validateServiceAccount, validateServiceAccountUpdate } from './core/service-account.js';
import { configMapDecodeError, QUANTITY_PATTERNS, quantityDecodeError } from './decode-check.js';
import { extraGroups } from './groups.js';
import { validatePodCreate, validatePodEphemeralContainersUpdate, validatePodUpdate } from './pod/pod.js';
import { validatePodStatusUpdate } from './pod/pod-status.js';

export type { FieldError };

/** What kube-apiserver does for one kind before storing it. */
export interface BuiltinKindRules {
  /**
   * Decoding, conversion and defaulting, in place (SetObjectDefaults_* plus what decoding
   * normalises: quantities to their canonical text, Secret stringData into data).
   */
  defaults?(obj: KubeObject): void;
  /** Validation on create (after defaults, admission and the strategy's PrepareForCreate). */
  validateCreate?(obj: KubeObject): FieldError[];
  /** Validation on update (after defaults, admission and the strategy's PrepareForUpdate). */
  /** `subresource`: '' for the object itself, 'status' for its status, ... */
  validateUpdate?(obj: KubeObject, old: KubeObject, subresource: string): FieldError[];
  /**
   * The message of the first value that fails to decode (answered 400 BadRequest as
   * `<Kind> in version "<version>" cannot be handled as a <Kind>: <message>`), before defaults run.
   */
  decodeError?(obj: KubeObject): string | undefined;
}

function quantityChecks(key: string): Pick<BuiltinKindRules, 'decodeError'> {
  const patterns = QUANTITY_PATTERNS[key];
  return patterns === undefined ? {} : { decodeError: (obj) => quantityDecodeError(obj, patterns) };
}

const coreAndApps: Record<string, BuiltinKindRules> = {
  '/Namespace': {
    defaults: defaultNamespace,
    validateCreate: validateNamespace,
    validateUpdate: validateNamespaceUpdate,
  },
  '/ConfigMap': {
    validateCreate: validateConfigMap,
    validateUpdate: validateConfigMapUpdate,
    decodeError: configMapDecodeError,
  },
  '/Secret': {
    defaults: defaultSecret,
    validateCreate: validateSecret,
    validateUpdate: validateSecretUpdate,
  },
  '/ServiceAccount': { validateCreate: validateServiceAccount, validateUpdate: validateServiceAccountUpdate },
  '/Service': {
    defaults: defaultService,
    validateCreate: validateService,
    validateUpdate: validateServiceUpdate,
  },
  '/Pod': {
    defaults: defaultPod,
    validateCreate: validatePodCreate,
    // A status write is checked as kube-apiserver's pod status strategy checks it, and
    // pods/ephemeralcontainers as its EphemeralContainersStrategy does.
    validateUpdate: (pod, old, subresource) =>
      subresource === 'status'
        ? validatePodStatusUpdate(pod, old)
        : subresource === 'ephemeralcontainers'
          ? validatePodEphemeralContainersUpdate(pod, old)
          : validatePodUpdate(pod, old),
  },
  '/PodTemplate': {
    defaults: defaultPodTemplateObject,
    validateCreate: validatePodTemplate,
    validateUpdate: validatePodTemplateUpdate,
  },
  '/ReplicationController': {
    defaults: defaultReplicationController,
    validateCreate: validateReplicationController,
    validateUpdate: validateReplicationControllerUpdate,
  },
  '/Endpoints': {
    defaults: defaultEndpoints,
    validateCreate: validateEndpoints,
    validateUpdate: validateEndpointsUpdate,
  },
  '/Node': { defaults: defaultNode, validateCreate: validateNode, validateUpdate: validateNodeUpdate },
  '/Event': { validateCreate: validateCoreEvent, validateUpdate: validateCoreEventUpdate },
  'events.k8s.io/Event': {
    validateCreate: validateEventsApiEvent,
    validateUpdate: validateEventsApiEventUpdate,
  },
  '/PersistentVolumeClaim': {
    defaults: defaultPersistentVolumeClaim,
    validateCreate: validatePersistentVolumeClaim,
    validateUpdate: validatePersistentVolumeClaimUpdate,
  },
  '/PersistentVolume': {
    defaults: defaultPersistentVolume,
    validateCreate: validatePersistentVolume,
    validateUpdate: validatePersistentVolumeUpdate,
  },
  '/ResourceQuota': {
    defaults: defaultResourceQuota,
    validateCreate: validateResourceQuota,
    validateUpdate: validateResourceQuotaUpdate,
  },
  '/LimitRange': {
    defaults: defaultLimitRange,
    validateCreate: validateLimitRange,
    validateUpdate: validateLimitRangeUpdate,
  },
  'apps/Deployment': {
    defaults: defaultDeployment,
    validateCreate: validateDeployment,
    validateUpdate: validateDeploymentUpdate,
  },
  'apps/ReplicaSet': {
    defaults: defaultReplicaSet,
    validateCreate: validateReplicaSet,
    validateUpdate: validateReplicaSetUpdate,
  },
  'apps/StatefulSet': {
    defaults: defaultStatefulSet,
    validateCreate: validateStatefulSet,
    validateUpdate: validateStatefulSetUpdate,
  },
  'apps/DaemonSet': {
    defaults: defaultDaemonSet,
    validateCreate: validateDaemonSet,
    validateUpdate: validateDaemonSetUpdate,
  },
  'apps/ControllerRevision': {
    validateCreate: validateControllerRevision,
    validateUpdate: validateControllerRevisionUpdate,
  },
};

function withDecodeChecks(table: Record<string, BuiltinKindRules>): Record<string, BuiltinKindRules> {
  const result: Record<string, BuiltinKindRules> = {};
  for (const [key, rules] of Object.entries(table)) result[key] = { ...quantityChecks(key), ...rules };
  return result;
}

/** Defaulting and validation per built-in kind, keyed "<group>/<Kind>" (e.g. "/Pod", "apps/Deployment"). */
export const builtinValidation: Readonly<Record<string, BuiltinKindRules>> = withDecodeChecks({
  ...coreAndApps,
  ...extraGroups,
});

/** The rules of one kind, or undefined for kinds without built-in rules. */
export function rulesFor(group: string, kind: string): BuiltinKindRules | undefined {
  return builtinValidation[`${group}/${kind}`];
}
