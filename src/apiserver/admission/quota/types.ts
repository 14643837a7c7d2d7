// The parts of ResourceQuota the quota plugin reads.

import type { KubeObject } from '../../../api/object.js';

/** A resource with its API group (`''` for the core group). */
export interface GroupResource {
  group: string;
  resource: string;
}

export type ScopeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface ScopedResourceSelectorRequirement {
  scopeName: string;
  operator: ScopeSelectorOperator | string;
  values?: string[];
}

export interface ResourceQuota extends KubeObject {
  spec?: {
    hard?: Record<string, unknown>;
    scopes?: string[];
    scopeSelector?: { matchExpressions?: ScopedResourceSelectorRequirement[] };
  };
  status?: {
    hard?: Record<string, unknown>;
    used?: Record<string, unknown>;
  };
}

/** How the request reaches the plugin. */
export type QuotaOperation = 'CREATE' | 'UPDATE';
