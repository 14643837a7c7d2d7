// The kinds of the groups other than core and apps.
import {
  defaultCronJob,
  defaultEndpointSlice,
  defaultHorizontalPodAutoscaler,
  defaultIngressClass,
  defaultJob,
  defaultNetworkPolicy,
  defaultPriorityClass,
  defaultStorageClass,
} from '../defaults/groups.js';
import {
  defaultValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyUpdate,
} from './admissionregistration/validating-admission-policy.js';
import {
  defaultValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyBindingUpdate,
} from './admissionregistration/validating-admission-policy-binding.js';
import {
  mutatingWebhookConfigurationRules,
  validatingWebhookConfigurationRules,
} from './admissionregistration/webhook-configuration.js';
import {
  defaultApiService,
  validateApiService,
  validateApiServiceUpdate,
} from './apiregistration/api-service.js';
import {
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerUpdate,
} from './autoscaling/horizontal-pod-autoscaler.js';
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from './batch/jobs.js';
import { validateLease, validateLeaseUpdate } from './coordination/lease.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './discovery/endpoint-slice.js';
import type { BuiltinKindRules } from './index.js';
import {
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressUpdate,
  validateNetworkPolicy,
  validateNetworkPolicyUpdate,
} from './networking/networking.js';
import {
  validatePodDisruptionBudget,
  validatePodDisruptionBudgetUpdate,
} from './policy/pod-disruption-budget.js';
import { validatePriorityClass, validatePriorityClassUpdate } from './scheduling/priority-class.js';
import { validateStorageClass, validateStorageClassUpdate } from './storage/storage-class.js';

export const extraGroups: Record<string, BuiltinKindRules> = {
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': mutatingWebhookConfigurationRules,
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': validatingWebhookConfigurationRules,
  'apiregistration.k8s.io/APIService': {
    defaults: defaultApiService,
    validateCreate: validateApiService,
    validateUpdate: validateApiServiceUpdate,
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': {
    defaults: defaultValidatingAdmissionPolicy,
    validateCreate: validateValidatingAdmissionPolicy,
    validateUpdate: validateValidatingAdmissionPolicyUpdate,
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': {
    defaults: defaultValidatingAdmissionPolicyBinding,
    validateCreate: validateValidatingAdmissionPolicyBinding,
    validateUpdate: validateValidatingAdmissionPolicyBindingUpdate,
  },
  'batch/Job': { defaults: defaultJob, validateCreate: validateJob, validateUpdate: validateJobUpdate },
  'batch/CronJob': {
    defaults: defaultCronJob,
    validateCreate: validateCronJob,
    validateUpdate: validateCronJobUpdate,
  },
  'networking.k8s.io/Ingress': { validateCreate: validateIngress, validateUpdate: validateIngressUpdate },
  'networking.k8s.io/IngressClass': {
    defaults: defaultIngressClass,
    validateCreate: validateIngressClass,
    validateUpdate: validateIngressClassUpdate,
  },
  'networking.k8s.io/NetworkPolicy': {
    defaults: defaultNetworkPolicy,
    validateCreate: validateNetworkPolicy,
    validateUpdate: validateNetworkPolicyUpdate,
  },
  'policy/PodDisruptionBudget': {
    validateCreate: validatePodDisruptionBudget,
    validateUpdate: validatePodDisruptionBudgetUpdate,
  },
  'autoscaling/HorizontalPodAutoscaler': {
    defaults: defaultHorizontalPodAutoscaler,
    validateCreate: validateHorizontalPodAutoscaler,
    validateUpdate: validateHorizontalPodAutoscalerUpdate,
  },
  'scheduling.k8s.io/PriorityClass': {
    defaults: defaultPriorityClass,
    validateCreate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
  },
  'storage.k8s.io/StorageClass': {
    defaults: defaultStorageClass,
    validateCreate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
  },
  'coordination.k8s.io/Lease': { validateCreate: validateLease, validateUpdate: validateLeaseUpdate },
  'discovery.k8s.io/EndpointSlice': {
    defaults: defaultEndpointSlice,
    validateCreate: validateEndpointSlice,
    validateUpdate: validateEndpointSliceUpdate,
  },
};
