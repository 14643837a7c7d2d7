/**
 * Reconciliation of the bootstrap policy at apiserver start (Kubernetes' reconciliation
 * package): a missing object is created; an existing one gets the bootstrap labels,
 * annotations, rules or subjects it lacks, keeping whatever users added. An object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is protected: it is reported, not
 * written.
 */
import { compareGoStrings } from '../../../api/selectors/go-text.js';
import type { LabelSelectorObject } from '../../../api/selectors/index.js';
import { coversRules } from './rules.js';
import {
  type AggregationRule,
  AUTO_UPDATE_ANNOTATION,
  type ClusterRole,
  type PolicyRule,
  type Role,
  type RoleBinding,
  type Subject,
} from './types.js';

export type ReconcileOperation = 'create' | 'update' | 'recreate' | 'none';

interface ReconcileResultBase<T> {
  /** What reconciling needs; nothing is written when `protected` is true. */
  readonly operation: ReconcileOperation;
  readonly protected: boolean;
  /** The object to create or update (the existing one, unchanged, for 'none'). */
  readonly object: T;
}

export interface RoleReconcileResult<T extends Role> extends ReconcileResultBase<T> {
  readonly missingRules: PolicyRule[];
  readonly extraRules: PolicyRule[];
  readonly missingAggregationRuleSelectors: LabelSelectorObject[];
  readonly extraAggregationRuleSelectors: LabelSelectorObject[];
}

export interface BindingReconcileResult<T extends RoleBinding> extends ReconcileResultBase<T> {
  readonly missingSubjects: Subject[];
  readonly extraSubjects: Subject[];
}

/** Whether the result asks for a write (the apiserver skips protected objects). */
export function needsWrite(result: ReconcileResultBase<unknown>): boolean {
  return !result.protected && result.operation !== 'none';
}

type StringMap = Record<string, string>;

// Go's merge: later maps win; the result is absent only when every map is.
function merge(...maps: (StringMap | undefined)[]): StringMap | undefined {
  let output: StringMap | undefined;
  for (const map of maps) {
    if (map === undefined) continue;
    output ??= {};
    Object.assign(output, map);
  }
  if (output === undefined) return undefined;
  const sorted: StringMap = {};
  for (const key of Object.keys(output).sort(compareGoStrings)) sorted[key] = output[key]!;
  return sorted;
}

// reflect.DeepEqual on maps: an absent map differs from an empty one.
function sameMap(a: StringMap | undefined, b: StringMap | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key])
  );
}

function isProtected(existing: { metadata: { annotations?: StringMap } }): boolean {
  return existing.metadata.annotations?.[AUTO_UPDATE_ANNOTATION] === 'false';
}

function sameList(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((value, i) => value === right[i]);
}

function sameSelector(a: LabelSelectorObject, b: LabelSelectorObject): boolean {
  const leftLabels = a.matchLabels ?? {};
  const rightLabels = b.matchLabels ?? {};
  const keys = Object.keys(leftLabels);
  if (keys.length !== Object.keys(rightLabels).length) return false;
  if (!keys.every((key) => Object.hasOwn(rightLabels, key) && leftLabels[key] === rightLabels[key]))
    return false;
  const left = a.matchExpressions ?? [];
  const right = b.matchExpressions ?? [];
  return (
    left.length === right.length &&
    left.every(
      (expression, i) =>
        expression.key === right[i]!.key &&
        expression.operator === right[i]!.operator &&
        sameList(expression.values, right[i]!.values),
    )
  );
}

/** The servant's selectors the owner does not have (Kubernetes' aggregationRuleCovers). */
function uncoveredSelectors(owner: AggregationRule | undefined, servant: AggregationRule | undefined) {
  if (servant === undefined) return [];
  if (owner === undefined) return [...(servant.clusterRoleSelectors ?? [])];
  const owned = owner.clusterRoleSelectors ?? [];
  return (servant.clusterRoleSelectors ?? []).filter(
    (selector) => !owned.some((candidate) => sameSelector(candidate, selector)),
  );
}

function aggregationRuleOf(role: Role): AggregationRule | undefined {
  return (role as ClusterRole).aggregationRule ?? undefined;
}

/**
 * Reconciles a Role or ClusterRole. By default (as at apiserver start) missing rules are
 * appended, broken down into single-verb rules as Kubernetes appends them, and extra rules
 * stay; with `removeExtraPermissions` the expected rules replace the existing ones.
 */
export function reconcileRole<T extends Role>(
  expected: T,
  existing: T | undefined,
  options: { removeExtraPermissions?: boolean } = {},
): RoleReconcileResult<T> {
  const removeExtra = options.removeExtraPermissions ?? false;
  if (existing === undefined) {
    return {
      operation: 'create',
      protected: false,
      object: expected,
      missingRules: [...(expected.rules ?? [])],
      extraRules: [],
      missingAggregationRuleSelectors: [...(aggregationRuleOf(expected)?.clusterRoleSelectors ?? [])],
      extraAggregationRuleSelectors: [],
    };
  }
  const object = structuredClone(existing);
  let operation: ReconcileOperation = 'none';

  object.metadata.annotations = merge(expected.metadata.annotations, object.metadata.annotations);
  if (!sameMap(object.metadata.annotations, existing.metadata.annotations)) operation = 'update';
  object.metadata.labels = merge(expected.metadata.labels, object.metadata.labels);
  if (!sameMap(object.metadata.labels, existing.metadata.labels)) operation = 'update';
  if (object.metadata.annotations === undefined) delete object.metadata.annotations;
  if (object.metadata.labels === undefined) delete object.metadata.labels;

  const extraRules = coversRules(expected.rules ?? [], existing.rules ?? []).missing;
  const missingRules = coversRules(existing.rules ?? [], expected.rules ?? []).missing;
  if (!removeExtra && missingRules.length > 0) {
    object.rules = [...(object.rules ?? []), ...missingRules];
    operation = 'update';
  } else if (removeExtra && (missingRules.length > 0 || extraRules.length > 0)) {
    object.rules = structuredClone(expected.rules);
    operation = 'update';
  }

  const expectedAggregation = aggregationRuleOf(expected);
  const existingAggregation = aggregationRuleOf(existing);
  const extraSelectors = uncoveredSelectors(expectedAggregation, existingAggregation);
  const missingSelectors = uncoveredSelectors(existingAggregation, expectedAggregation);
  const target = object as ClusterRole;
  if (expectedAggregation === undefined && existingAggregation !== undefined) {
    // The bootstrap role is no longer aggregated: drop the aggregation.
    delete target.aggregationRule;
    operation = 'update';
  } else if (!removeExtra && missingSelectors.length > 0) {
    const rule = target.aggregationRule ?? {};
    rule.clusterRoleSelectors = [...(rule.clusterRoleSelectors ?? []), ...structuredClone(missingSelectors)];
    target.aggregationRule = rule;
    operation = 'update';
  } else if (removeExtra && (missingSelectors.length > 0 || extraSelectors.length > 0)) {
    target.aggregationRule = structuredClone(expectedAggregation);
    operation = 'update';
  }

  return {
    operation,
    protected: isProtected(existing),
    object,
    missingRules,
    extraRules,
    missingAggregationRuleSelectors: missingSelectors,
    extraAggregationRuleSelectors: extraSelectors,
  };
}

function sameSubject(a: Subject, b: Subject): boolean {
  return (
    a.kind === b.kind &&
    (a.apiGroup ?? '') === (b.apiGroup ?? '') &&
    a.name === b.name &&
    (a.namespace ?? '') === (b.namespace ?? '')
  );
}

/** Items of `list` missing from `other`, each once, in order. */
function subjectsOnlyIn(list: readonly Subject[], other: readonly Subject[]): Subject[] {
  const only: Subject[] = [];
  for (const subject of list) {
    if (
      !other.some((candidate) => sameSubject(candidate, subject)) &&
      !only.some((s) => sameSubject(s, subject))
    ) {
      only.push(subject);
    }
  }
  return only;
}

/**
 * Reconciles a RoleBinding or ClusterRoleBinding. A different roleRef cannot be updated in
 * place, so the binding is recreated as expected; otherwise missing subjects are appended (or,
 * with `removeExtraSubjects`, the expected subjects replace the existing ones).
 */
export function reconcileRoleBinding<T extends RoleBinding>(
  expected: T,
  existing: T | undefined,
  options: { removeExtraSubjects?: boolean } = {},
): BindingReconcileResult<T> {
  const removeExtra = options.removeExtraSubjects ?? false;
  if (existing === undefined) {
    return {
      operation: 'create',
      protected: false,
      object: expected,
      missingSubjects: [...(expected.subjects ?? [])],
      extraSubjects: [],
    };
  }
  const isProtectedBinding = isProtected(existing);
  const { roleRef } = expected;
  if (
    roleRef.apiGroup !== existing.roleRef.apiGroup ||
    roleRef.kind !== existing.roleRef.kind ||
    roleRef.name !== existing.roleRef.name
  ) {
    return {
      operation: 'recreate',
      protected: isProtectedBinding,
      object: expected,
      missingSubjects: [],
      extraSubjects: [],
    };
  }

  const object = structuredClone(existing);
  let operation: ReconcileOperation = 'none';
  object.metadata.annotations = merge(expected.metadata.annotations, object.metadata.annotations);
  if (!sameMap(object.metadata.annotations, existing.metadata.annotations)) operation = 'update';
  object.metadata.labels = merge(expected.metadata.labels, object.metadata.labels);
  if (!sameMap(object.metadata.labels, existing.metadata.labels)) operation = 'update';
  if (object.metadata.annotations === undefined) delete object.metadata.annotations;
  if (object.metadata.labels === undefined) delete object.metadata.labels;

  const missingSubjects = subjectsOnlyIn(expected.subjects ?? [], existing.subjects ?? []);
  const extraSubjects = subjectsOnlyIn(existing.subjects ?? [], expected.subjects ?? []);
  if (!removeExtra && missingSubjects.length > 0) {
    object.subjects = [...(object.subjects ?? []), ...structuredClone(missingSubjects)];
    operation = 'update';
  } else if (removeExtra && (missingSubjects.length > 0 || extraSubjects.length > 0)) {
    object.subjects = structuredClone(expected.subjects);
    operation = 'update';
  }
  return { operation, protected: isProtectedBinding, object, missingSubjects, extraSubjects };
}
