// What the quota plugin needs to know about one kind of object (quota.Evaluator).

import type { KubeObject } from '../../../api/object.js';
import type { ResourceList } from './resource-list.js';
import type { QuotaOperation, ResourceQuota, ScopedResourceSelectorRequirement } from './types.js';

export interface EvaluationContext {
  operation: QuotaOperation;
  subresource: string;
  object: KubeObject;
  oldObject?: KubeObject;
}

export interface QuotaEvaluator {
  /** Whether this request can change usage at all. */
  handles(context: EvaluationContext): boolean;
  /** The quota resource names, out of `names`, this kind of object consumes. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object falls under one scope selector of a quota. */
  matchesScope(selector: ScopedResourceSelectorRequirement, object: KubeObject): boolean;
  /** Why the object cannot be admitted under a quota tracking `required`, if it cannot. */
  constraints(required: readonly string[], object: KubeObject): string | undefined;
  usage(object: KubeObject, now: Date): ResourceList;
}

/** The quota's scopes (as Exists requirements) followed by its scopeSelector expressions. */
export function scopeSelectorsOf(quota: ResourceQuota): ScopedResourceSelectorRequirement[] {
  const selectors: ScopedResourceSelectorRequirement[] = (quota.spec?.scopes ?? []).map((scopeName) => ({
    scopeName,
    operator: 'Exists',
  }));
  return [...selectors, ...(quota.spec?.scopeSelector?.matchExpressions ?? [])];
}

/** Scopes only ever select pods: any scoped quota never matches other objects. */
export function matchesNoScope(): boolean {
  return false;
}

/** quota.Matches: the quota tracks something this object consumes, and all its scopes select it. */
export function quotaMatches(
  evaluator: QuotaEvaluator,
  quota: ResourceQuota,
  hardNames: readonly string[],
  object: KubeObject,
): boolean {
  if (evaluator.matchingResources(hardNames).length === 0) return false;
  return scopeSelectorsOf(quota).every((selector) => evaluator.matchesScope(selector, object));
}
