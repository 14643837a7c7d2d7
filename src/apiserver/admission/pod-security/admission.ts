/**
 * The PodSecurity admission decision for one write (pod-security-admission admission.go): pods
 * are enforced, warned and audited; workload resources with pod templates are only warned and
 * audited, so a bad template never blocks a Deployment but its pods will be blocked.
 */

import { evaluatePod, formatViolations } from './checks.js';
import {
  DEFAULT_POLICY,
  formatLabelErrors,
  type LevelVersion,
  levelVersionString,
  type Policy,
  policyFromLabels,
  sameLevelVersion,
} from './levels.js';
import type { PodContainer, PodMetadataForPolicy, PodSpecForPolicy } from './types.js';

/** Kinds whose objects embed a pod template that PodSecurity evaluates. */
export type PodTemplateKind =
  | 'PodTemplate'
  | 'ReplicationController'
  | 'ReplicaSet'
  | 'Deployment'
  | 'StatefulSet'
  | 'DaemonSet'
  | 'Job'
  | 'CronJob';

export interface PodSecurityExemptions {
  namespaces?: readonly string[];
  usernames?: readonly string[];
  runtimeClasses?: readonly string[];
}

/** The JSON of a pod or workload object, as far as PodSecurity reads it. */
export interface PodSecurityObject {
  metadata?: PodMetadataForPolicy;
  [field: string]: unknown;
}

export interface PodSecurityRequest {
  namespaceLabels?: Readonly<Record<string, string>>;
  /** Other kinds are not PodSecurity's business and are always allowed. */
  kind: 'Pod' | PodTemplateKind | (string & {});
  object: PodSecurityObject;
  operation: 'CREATE' | 'UPDATE';
  oldObject?: PodSecurityObject;
  subresource?: string;
  namespace?: string;
  username?: string;
  exemptions?: PodSecurityExemptions;
  /** The cluster's default policy (AdmissionConfiguration defaults); privileged:latest everywhere if unset. */
  defaults?: Policy;
}

export interface PodSecurityDecision {
  /** Set when the request is denied: the Forbidden message after `<resource> "<name>" is forbidden: `. */
  deny?: string;
  /** Texts for `Warning:` response headers. */
  warnings: string[];
  /** Audit annotations, keys already prefixed with `pod-security.kubernetes.io/`. */
  auditAnnotations: Record<string, string>;
}

const ANNOTATION_PREFIX = 'pod-security.kubernetes.io/';

/** Workload kinds whose pod templates are checked (warnings and audit only). */
export const POD_TEMPLATE_KINDS = new Set<string>([
  'PodTemplate',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
]);

/** Pod subresources that cannot change what PodSecurity checks (ephemeralcontainers, for one, can). */
const IGNORED_POD_SUBRESOURCES = new Set([
  'exec',
  'attach',
  'binding',
  'eviction',
  'log',
  'portforward',
  'proxy',
  'status',
]);

function allowed(annotations: Record<string, string> = {}): PodSecurityDecision {
  return { warnings: [], auditAnnotations: annotations };
}

function exemptBy(request: PodSecurityRequest): string | undefined {
  const { exemptions, namespace, username } = request;
  if (namespace && exemptions?.namespaces?.includes(namespace)) return 'namespace';
  if (username && exemptions?.usernames?.includes(username)) return 'user';
  return undefined;
}

export function podSecurityDecision(request: PodSecurityRequest): PodSecurityDecision {
  if (request.kind === 'Pod') return decidePod(request);
  if (POD_TEMPLATE_KINDS.has(request.kind)) return decidePodTemplate(request);
  return allowed();
}

function decidePod(request: PodSecurityRequest): PodSecurityDecision {
  if (request.subresource && IGNORED_POD_SUBRESOURCES.has(request.subresource)) return allowed();
  const exemption = exemptBy(request);
  if (exemption) return allowed({ [`${ANNOTATION_PREFIX}exempt`]: exemption });

  const { policy, errors } = policyFromLabels(request.namespaceLabels, request.defaults ?? DEFAULT_POLICY);
  const fullyPrivileged =
    policy.enforce.level === 'privileged' &&
    policy.audit.level === 'privileged' &&
    policy.warn.level === 'privileged';
  if (errors.length === 0 && fullyPrivileged) {
    return allowed({ [`${ANNOTATION_PREFIX}enforce-policy`]: 'privileged:latest' });
  }
  const pod = request.object;
  if (
    request.operation === 'UPDATE' &&
    request.oldObject &&
    !isSignificantPodUpdate(pod, request.oldObject)
  ) {
    return allowed();
  }
  const parseError = errors.length > 0 ? formatLabelErrors(errors) : undefined;
  return evaluate(policy, parseError, pod.metadata, podSpecOf(pod.spec), request, true);
}

function decidePodTemplate(request: PodSecurityRequest): PodSecurityDecision {
  if (request.subresource) return allowed();
  const exemption = exemptBy(request);
  if (exemption) return allowed({ [`${ANNOTATION_PREFIX}exempt`]: exemption });

  const { policy, errors } = policyFromLabels(request.namespaceLabels, request.defaults ?? DEFAULT_POLICY);
  if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') {
    return allowed();
  }
  const template = podTemplateOf(request.kind, request.object);
  if (!template) return allowed();
  const parseError = errors.length > 0 ? formatLabelErrors(errors) : undefined;
  return evaluate(policy, parseError, template.metadata, podSpecOf(template.spec), request, false);
}

interface PodTemplate {
  metadata?: PodMetadataForPolicy;
  spec?: unknown;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function podSpecOf(value: unknown): PodSpecForPolicy {
  return (asRecord(value) ?? {}) as PodSpecForPolicy;
}

/**
 * The pod template a workload embeds. Only a ReplicationController's template is optional;
 * the others always have one, empty if unset.
 */
function podTemplateOf(kind: string, object: PodSecurityObject): PodTemplate | undefined {
  const spec = asRecord(object.spec);
  let template: unknown;
  if (kind === 'PodTemplate') template = object.template;
  else if (kind === 'CronJob') template = asRecord(asRecord(spec?.jobTemplate)?.spec)?.template;
  else template = spec?.template;
  const record = asRecord(template);
  if (!record) return kind === 'ReplicationController' ? undefined : {};
  return { metadata: asRecord(record.metadata) as PodMetadataForPolicy | undefined, spec: record.spec };
}

function evaluate(
  policy: Policy,
  parseError: string | undefined,
  metadata: PodMetadataForPolicy | undefined,
  spec: PodSpecForPolicy,
  request: PodSecurityRequest,
  enforce: boolean,
): PodSecurityDecision {
  if (spec.runtimeClassName && request.exemptions?.runtimeClasses?.includes(spec.runtimeClassName)) {
    return allowed({ [`${ANNOTATION_PREFIX}exempt`]: 'runtimeClass' });
  }
  const decision = allowed();
  if (parseError)
    decision.auditAnnotations[`${ANNOTATION_PREFIX}error`] = `Failed to parse policy: ${parseError}`;

  // Audit and warn reuse the enforce result when they name the same level and version.
  const results: { levelVersion: LevelVersion; text: string }[] = [];
  const resultFor = (lv: LevelVersion): string => {
    const cached = results.find((r) => sameLevelVersion(r.levelVersion, lv));
    if (cached) return cached.text;
    const text = formatViolations(evaluatePod(lv.level, metadata, spec, lv.version));
    results.push({ levelVersion: lv, text });
    return text;
  };

  if (enforce) {
    decision.auditAnnotations[`${ANNOTATION_PREFIX}enforce-policy`] = levelVersionString(policy.enforce);
    const violations = resultFor(policy.enforce);
    if (violations)
      decision.deny = `violates PodSecurity "${levelVersionString(policy.enforce)}": ${violations}`;
  }
  const auditViolations = resultFor(policy.audit);
  if (auditViolations) {
    decision.auditAnnotations[`${ANNOTATION_PREFIX}audit-violations`] =
      `would violate PodSecurity "${levelVersionString(policy.audit)}": ${auditViolations}`;
  }
  // A request that is denied anyway gets no warnings.
  if (!decision.deny) {
    const warnViolations = resultFor(policy.warn);
    if (warnViolations) {
      decision.warnings.push(
        `would violate PodSecurity "${levelVersionString(policy.warn)}": ${warnViolations}`,
      );
    }
  }
  return decision;
}

function containersOf(object: PodSecurityObject, field: keyof PodSpecForPolicy): PodContainer[] {
  const list = podSpecOf(object.spec)[field];
  return Array.isArray(list) ? (list as PodContainer[]) : [];
}

/**
 * Whether a pod update can change the verdict. Pod specs are immutable apart from images (and
 * added ephemeral containers), so anything else — labels, annotations, status — is not re-checked.
 */
export function isSignificantPodUpdate(pod: PodSecurityObject, oldPod: PodSecurityObject): boolean {
  for (const field of ['containers', 'initContainers'] as const) {
    const current = containersOf(pod, field);
    const old = containersOf(oldPod, field);
    if (current.length !== old.length) return true;
    if (current.some((container, i) => container.image !== old[i]!.image)) return true;
  }
  const oldEphemeral = containersOf(oldPod, 'ephemeralContainers');
  return containersOf(pod, 'ephemeralContainers').some((container) => {
    const old = oldEphemeral.find((candidate) => candidate.name === container.name);
    return !old || old.image !== container.image;
  });
}
