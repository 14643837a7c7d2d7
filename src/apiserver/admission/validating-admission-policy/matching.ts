// Which requests a policy or binding applies to (k8s.io/apiserver/pkg/admission/plugin/policy/
// matching and pkg/admission/plugin/webhook/predicates): the namespace selector, the object
// selector (new or old object's labels), excluded resource rules, then resource rules with
// operations, API groups, versions, resources with subresources and `*`, scope and resource names;
// `matchPolicy: Equivalent` also matches a rule naming another served version of the resource.
// Nothing here assumes a built-in kind, so custom resources match as built-ins do.
import type { KubeObject } from '../../../api/object.js';
import { type LabelSelectorObject, labelSelectorFromObject } from '../../../api/selectors/index.js';
import type {
  MatchResources,
  NamedRuleWithOperations,
} from '../../../api/types/admissionregistration-v1.generated.js';
import type { AdmissionAttributes } from '../chain.js';

/** What matching reads of a request. */
export interface MatchRequest {
  readonly operation: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  /** '' for cluster-scoped resources. */
  readonly namespace: string;
  readonly name: string;
  readonly object?: KubeObject | null | undefined;
  readonly oldObject?: KubeObject | null | undefined;
  /** The labels of the request's namespace (undefined for cluster-scoped requests). */
  readonly namespaceLabels?: Readonly<Record<string, string>> | undefined;
  /** Versions of the same group/resource that the apiserver serves, for `Equivalent`. */
  readonly equivalentVersions?: readonly string[] | undefined;
}

function labelsOf(object: KubeObject | null | undefined): Record<string, string> {
  return (object?.metadata?.labels as Record<string, string> | undefined) ?? {};
}

function isEmptySelector(selector: LabelSelectorObject | undefined): boolean {
  return (
    selector === undefined ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  );
}

/**
 * The namespace selector: cluster-scoped requests (other than for namespaces) always match; a
 * namespace request matches on the namespace's own labels.
 */
export function matchesNamespaceSelector(
  selector: LabelSelectorObject | undefined,
  request: MatchRequest,
): boolean {
  if (isEmptySelector(selector)) return true;
  const selecting = labelSelectorFromObject(selector);
  if (request.group === '' && request.resource === 'namespaces' && request.subresource === '') {
    return selecting.matches(labelsOf(request.object ?? request.oldObject));
  }
  if (request.namespace === '') return true;
  return selecting.matches(request.namespaceLabels ?? {});
}

/** The object selector matches when the new or the old object's labels match. */
export function matchesObjectSelector(
  selector: LabelSelectorObject | undefined,
  request: MatchRequest,
): boolean {
  if (isEmptySelector(selector)) return true;
  const selecting = labelSelectorFromObject(selector);
  const matches = (object: KubeObject | null | undefined) =>
    object !== null && object !== undefined && selecting.matches(labelsOf(object));
  return matches(request.object) || matches(request.oldObject);
}

function listMatches(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((item) => item === '*' || item === value);
}

/** A rule's resource entry against `resource[/subresource]`, with the `*` forms upstream allows. */
function resourceMatches(
  resources: readonly string[] | undefined,
  resource: string,
  subresource: string,
): boolean {
  const requested = subresource === '' ? resource : `${resource}/${subresource}`;
  return (resources ?? []).some((entry) => {
    if (entry === '*/*' || entry === requested) return true;
    const slash = entry.indexOf('/');
    if (slash < 0) return entry === '*' && subresource === '';
    const [res, sub] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (res === '*' && sub === subresource) return true;
    return res === resource && sub === '*' && subresource !== '';
  });
}

function scopeMatches(scope: string | undefined, namespace: string, request: MatchRequest): boolean {
  if (scope === undefined || scope === '*') return true;
  // A namespace is cluster-scoped, though its request carries its own name as namespace.
  const clusterScoped = namespace === '' || (request.group === '' && request.resource === 'namespaces');
  return scope === 'Cluster' ? clusterScoped : !clusterScoped;
}

function ruleMatches(rule: NamedRuleWithOperations, request: MatchRequest, version: string): boolean {
  return (
    listMatches(rule.operations, request.operation) &&
    listMatches(rule.apiGroups, request.group) &&
    listMatches(rule.apiVersions, version) &&
    resourceMatches(rule.resources, request.resource, request.subresource) &&
    scopeMatches(rule.scope, request.namespace, request) &&
    ((rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(request.name))
  );
}

/** Whether any of `rules` matches the request, exactly or (Equivalent) on another served version. */
export function matchesResourceRules(
  rules: readonly NamedRuleWithOperations[] | undefined,
  matchPolicy: string | undefined,
  request: MatchRequest,
): boolean {
  for (const rule of rules ?? []) {
    if (ruleMatches(rule, request, request.version)) return true;
    if (matchPolicy === 'Exact') continue;
    for (const version of request.equivalentVersions ?? []) {
      if (version !== request.version && ruleMatches(rule, request, version)) return true;
    }
  }
  return false;
}

/** The rule half of matching, which needs no namespace: excluded rules, then resource rules. */
export function matchesRules(match: MatchResources | undefined, request: MatchRequest): boolean {
  if (match === undefined) return true;
  const policy = match.matchPolicy ?? 'Equivalent';
  if (matchesResourceRules(match.excludeResourceRules, policy, request)) return false;
  // Without resource rules (a binding's matchResources may omit them) every resource matches.
  if ((match.resourceRules ?? []).length === 0) return true;
  return matchesResourceRules(match.resourceRules, policy, request);
}

/**
 * Whether `match` (a policy's matchConstraints or a binding's matchResources) selects the request.
 * Selector errors propagate: the caller treats them as configuration errors.
 */
export function matchesResources(match: MatchResources | undefined, request: MatchRequest): boolean {
  if (match === undefined) return true;
  if (!matchesNamespaceSelector(match.namespaceSelector as LabelSelectorObject | undefined, request))
    return false;
  if (!matchesObjectSelector(match.objectSelector as LabelSelectorObject | undefined, request)) return false;
  return matchesRules(match, request);
}

/**
 * The request as matching sees it, before the namespace's labels are read: a delete's object is
 * its old object, as upstream's versioned attributes have it.
 */
export function matchRequestOf(
  attributes: AdmissionAttributes,
  equivalentVersions: readonly string[] | undefined,
): MatchRequest {
  const isDelete = attributes.operation === 'DELETE';
  return {
    operation: attributes.operation,
    group: attributes.resource.group,
    version: attributes.resource.version,
    resource: attributes.resource.resource,
    subresource: attributes.subresource,
    namespace: attributes.resource.namespaced ? attributes.namespace : '',
    name: attributes.name || (attributes.object?.metadata?.name ?? ''),
    object: isDelete ? null : attributes.object,
    oldObject: isDelete ? attributes.object : (attributes.oldObject ?? null),
    equivalentVersions,
  };
}
