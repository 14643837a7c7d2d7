/**
 * PolicyRule semantics: whether a rule allows a request (RBAC's RuleAllows), and whether one
 * set of rules covers another (the escalation check's Covers), with the compact rule text
 * kube-apiserver prints in its escalation errors.
 */
import { goQuote } from '../../../api/selectors/go-text.js';
import type { Attributes } from './attributes.js';
import type { PolicyRule } from './types.js';

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((ruleVerb) => ruleVerb === ALL || ruleVerb === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === ALL || ruleGroup === group);
}

/**
 * `combined` is `resource` or `resource/subresource`. A rule names it exactly, or grants `*`
 * (every resource and subresource), or `*` + `/subresource` (that subresource of any resource).
 * A rule such as `pods/` + `*` is not a wildcard: Kubernetes matches it only literally.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (ruleResource) =>
      ruleResource === ALL ||
      ruleResource === combined ||
      (subresource !== '' && ruleResource === `*/${subresource}`),
  );
}

/** No resourceNames means every name; otherwise the request must name one of them. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*` matches every path; a trailing `*` makes the rest a prefix (`/apis/*`, `/healthz*`). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((url) => url === ALL || urlCovers(url, path));
}

function urlCovers(ownerURL: string, path: string): boolean {
  if (ownerURL === path) return true;
  return ownerURL.endsWith(ALL) && path.startsWith(ownerURL.replace(/\*+$/, ''));
}

export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceURLMatches(rule, attributes.path);
  const combined =
    attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (
    apiGroupMatches(rule, attributes.apiGroup) &&
    resourceMatches(rule, combined, attributes.subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}

export function rulesAllow(attributes: Attributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((rule) => ruleAllows(attributes, rule));
}

/**
 * Splits a rule into rules of one group, resource, verb and (if any) name, or one
 * non-resource URL and verb, in the order Kubernetes enumerates them.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const subrules: PolicyRule[] = [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (names.length > 0) {
          for (const name of names) {
            subrules.push({
              verbs: [verb],
              apiGroups: [group],
              resources: [resource],
              resourceNames: [name],
            });
          }
        } else {
          subrules.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) subrules.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return subrules;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  const owned = new Set(set);
  return wanted.every((item) => owned.has(item));
}

function resourcesCover(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes(ALL) || hasAll(owned, wanted)) return true;
  return wanted.every((resource) => {
    if (owned.includes(resource)) return true;
    const slash = resource.indexOf('/');
    return slash !== -1 && owned.includes(`*/${resource.slice(slash + 1)}`);
  });
}

function urlsCover(owned: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) => owned.some((url) => urlCovers(url, path)));
}

/** Whether `owner` grants all of `subrule` (a rule from breakdownRule). */
function ruleCovers(owner: PolicyRule, subrule: PolicyRule): boolean {
  const ownerGroups = owner.apiGroups ?? [];
  const ownerNames = owner.resourceNames ?? [];
  const subNames = subrule.resourceNames ?? [];
  const namesMatch = ownerNames.length === 0 || (subNames.length > 0 && hasAll(ownerNames, subNames));
  return (
    (owner.verbs.includes(ALL) || hasAll(owner.verbs, subrule.verbs)) &&
    (ownerGroups.includes(ALL) || hasAll(ownerGroups, subrule.apiGroups ?? [])) &&
    resourcesCover(owner.resources ?? [], subrule.resources ?? []) &&
    urlsCover(owner.nonResourceURLs ?? [], subrule.nonResourceURLs ?? []) &&
    namesMatch
  );
}

export interface Coverage {
  readonly covers: boolean;
  /** The broken-down rules no owner rule grants, in enumeration order. */
  readonly missing: PolicyRule[];
}

/** Whether the owner's rules grant everything the requested rules grant (Kubernetes' Covers). */
export function coversRules(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): Coverage {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const subrule of breakdownRule(rule)) {
      if (!owner.some((ownerRule) => ruleCovers(ownerRule, subrule))) missing.push(subrule);
    }
  }
  return { covers: missing.length === 0, missing };
}

function isSimpleResourceRule(rule: PolicyRule): string | undefined {
  const names = rule.resourceNames ?? [];
  if (names.length > 1 || (rule.nonResourceURLs ?? []).length > 0) return undefined;
  if ((rule.apiGroups ?? []).length !== 1 || (rule.resources ?? []).length !== 1) return undefined;
  return JSON.stringify([rule.apiGroups![0], rule.resources![0], names.length > 0, names[0] ?? '']);
}

/**
 * Merges rules of one group, resource and (at most one) name that differ only by verb, as
 * CompactRules does for the missing-rules list; other rules come first, unchanged.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const key = isSimpleResourceRule(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, { ...rule, verbs: [...rule.verbs] });
  }
  return [...compacted, ...simple.values()];
}

/** Go's `%q` of a []string: `["a" "b"]`. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** The rule as escalation errors print it: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactRuleString(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, values: readonly string[] | undefined) => {
    if (values && values.length > 0) parts.push(`${label}:${goQuotedList(values)}`);
  };
  add('APIGroups', rule.apiGroups);
  add('Resources', rule.resources);
  add('NonResourceURLs', rule.nonResourceURLs);
  add('ResourceNames', rule.resourceNames);
  add('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}
