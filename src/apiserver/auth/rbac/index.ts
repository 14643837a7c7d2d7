export {
  type AggregationResult,
  aggregateAll,
  aggregateClusterRole,
  sameRule,
  sameRules,
} from './aggregation.js';
export {
  type Attributes,
  type AttributesUser,
  nonResourceAttributes,
  requestAttributes,
  resourceAttributes,
} from './attributes.js';
export {
  type AuthorizationResult,
  type Authorizer,
  type Decision,
  defaultAuthorizer,
  type NonResourceRuleInfo,
  PRIVILEGED_GROUP,
  PrivilegedGroupsAuthorizer,
  RbacAuthorizer,
  type ResourceRuleInfo,
  UnionAuthorizer,
  type UserRules,
} from './authorizer.js';
export { BOOTSTRAP_LABEL, BOOTSTRAP_LABEL_VALUE } from './bootstrap-builders.js';
export { CONTROLLER_ROLE_PREFIX } from './bootstrap-controller-roles.js';
export {
  AGGREGATE_TO_ADMIN,
  AGGREGATE_TO_EDIT,
  AGGREGATE_TO_VIEW,
  type BootstrapPolicy,
  bootstrapPolicy,
  clusterRoleBindings,
  clusterRoles,
  controllerRoleBindings,
  controllerRoles,
  namespaceRoleBindings,
  namespaceRoles,
} from './bootstrap-policy.js';
export {
  AGGREGATION_RULE_FORBIDDEN,
  bindAttributes,
  clusterRoleEscalationError,
  confirmNoEscalation,
  escalateAttributes,
  escalationAllowed,
  escalationError,
  FULL_AUTHORITY,
  hasAggregationRule,
} from './escalation.js';
export { type ForbiddenStatus, forbiddenMessage, forbiddenReason, forbiddenStatus } from './forbidden.js';
export {
  type BindingReconcileResult,
  needsWrite,
  type ReconcileOperation,
  type RoleReconcileResult,
  reconcileRole,
  reconcileRoleBinding,
} from './reconcile.js';
export {
  aggregateErrors,
  type PolicySource,
  type ResolvedRules,
  rulesFor,
  serviceAccountUsername,
  subjectAppliesTo,
  visitRulesFor,
} from './rule-resolver.js';
export {
  breakdownRule,
  type Coverage,
  compactRuleString,
  compactRules,
  coversRules,
  ruleAllows,
  rulesAllow,
} from './rules.js';
export { type PolicyObjects, StaticPolicySource } from './static-policy.js';
export * from './types.js';
