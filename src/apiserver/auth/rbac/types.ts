/**
 * rbac.authorization.k8s.io/v1 objects as they arrive in JSON. Field order follows the Go
 * structs, so objects built here serialize the way kube-apiserver writes them.
 */
import type { LabelSelectorObject } from '../../../api/selectors/index.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';

/** Opts a bootstrap object in (or, with "false", out) of reconciliation at apiserver start. */
export const AUTO_UPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  /** `User`, `Group` or `ServiceAccount`. */
  kind: string;
  /** rbac.authorization.k8s.io for users and groups, empty for service accounts. */
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  /** `Role` or `ClusterRole`. */
  kind: string;
  name: string;
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelectorObject[];
}

export interface RbacObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export interface Role {
  apiVersion?: string;
  kind?: string;
  metadata: RbacObjectMeta;
  /** Serialized without omitempty: an aggregated ClusterRole starts as `rules: null`. */
  rules: PolicyRule[] | null;
}

export interface ClusterRole extends Role {
  aggregationRule?: AggregationRule;
}

export interface RoleBinding {
  apiVersion?: string;
  kind?: string;
  metadata: RbacObjectMeta;
  subjects?: Subject[];
  roleRef: RoleRef;
}

export type ClusterRoleBinding = RoleBinding;
