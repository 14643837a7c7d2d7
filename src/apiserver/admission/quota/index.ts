export { checkQuotas, type QuotaCheckOptions, type QuotaCheckResult, type QuotaUpdate } from './check.js';
export {
  type ObjectLister,
  type QuotaStatus,
  recalculateQuotaStatus,
  resourceForQuotaName,
  resourcesTrackedBy,
} from './recalculate.js';
export type { ResourceList } from './resource-list.js';
export type {
  GroupResource,
  QuotaOperation,
  ResourceQuota,
  ScopedResourceSelectorRequirement,
} from './types.js';
export { evaluatorFor, usageOf } from './usage.js';
