/**
 * PodSecurity on namespace writes (pod-security-admission admission.go, ValidateNamespace): the
 * `pod-security.kubernetes.io/*` labels must be valid, and tightening a namespace's enforce level
 * dry-runs its existing pods against the new level, answering with warnings (never a denial).
 */

import type { KubeObject } from '../../../api/object.js';
import { evaluatePod, formatViolationReasons } from './checks.js';
import {
  compareLevels,
  DEFAULT_POLICY,
  type LabelError,
  type LevelVersion,
  levelVersionString,
  type Policy,
  policyFromLabels,
  sameLevelVersion,
} from './levels.js';
import { goQuote } from './text.js';
import type { PodSpecForPolicy } from './types.js';

export interface NamespaceLabelsRequest {
  operation: 'CREATE' | 'UPDATE';
  labels?: Readonly<Record<string, string>>;
  /** The namespace's labels before an update. */
  oldLabels?: Readonly<Record<string, string>>;
  /** The cluster's default policy; privileged:latest everywhere if unset. */
  defaults?: Policy;
}

/**
 * `reject`: the labels are invalid (a 422 naming each label); `check-pods`: the enforce level was
 * tightened, so the existing pods are evaluated against it for warnings; `allow`: nothing to do.
 */
export type NamespaceLabelsVerdict =
  | { action: 'allow' }
  | { action: 'reject'; errors: LabelError[] }
  | { action: 'check-pods'; enforce: LevelVersion };

export function reviewNamespaceLabels(request: NamespaceLabelsRequest): NamespaceLabelsVerdict {
  const defaults = request.defaults ?? DEFAULT_POLICY;
  const next = policyFromLabels(request.labels, defaults);
  if (request.operation === 'CREATE') {
    return next.errors.length > 0 ? { action: 'reject', errors: next.errors } : { action: 'allow' };
  }
  const old = policyFromLabels(request.oldLabels, defaults);
  // Invalid labels already on the namespace do not block unrelated updates; new or changed ones do.
  if (
    next.errors.length > 0 &&
    (old.errors.length === 0 || JSON.stringify(next.errors) !== JSON.stringify(old.errors))
  ) {
    return { action: 'reject', errors: next.errors };
  }
  const enforce = next.policy.enforce;
  const oldEnforce = old.policy.enforce;
  if (sameLevelVersion(enforce, oldEnforce)) return { action: 'allow' };
  if (enforce.level === 'privileged') return { action: 'allow' };
  // Same version, same or looser level: no pod can newly violate it.
  if (enforce.version === oldEnforce.version && compareLevels(enforce.level, oldEnforce.level) < 1) {
    return { action: 'allow' };
  }
  return { action: 'check-pods', enforce };
}

export interface ExistingPodsOptions {
  /** At most this many pods are evaluated (Kubernetes: 3000). */
  maxPods?: number;
  /** Evaluation stops once this much time has passed (Kubernetes: 1 s). */
  timeoutMs?: number;
  /** The clock, in milliseconds. */
  now?: () => number;
}

const MAX_PODS_TO_CHECK = 3000;
const POD_CHECK_TIMEOUT_MS = 1000;

/**
 * The warnings for an enforce level set on a namespace with `pods` in it: a summary line, then one
 * line per distinct set of violations naming the lexically first pod with it and how many others
 * share it, sorted. Pods of a controller already evaluated are checked last, so that a large
 * ReplicaSet does not use up the budget before the others are seen.
 */
export function existingPodWarnings(
  namespace: string,
  enforce: LevelVersion,
  pods: readonly KubeObject[],
  options: ExistingPodsOptions = {},
): string[] {
  const now = options.now ?? Date.now;
  const deadline = now() + (options.timeoutMs ?? POD_CHECK_TIMEOUT_MS);
  const prioritized = prioritizePods(pods);
  const total = prioritized.length;
  const candidates = prioritized.slice(0, options.maxPods ?? MAX_PODS_TO_CHECK);

  let checked = candidates.length;
  const byWarning = new Map<string, { podName: string; count: number }>();
  for (const [index, pod] of candidates.entries()) {
    const violations = evaluatePod(enforce.level, pod.metadata, podSpecOf(pod), enforce.version);
    if (violations.length > 0) {
      const warning = formatViolationReasons(violations);
      const podName = pod.metadata?.name ?? '';
      const seen = byWarning.get(warning);
      if (!seen) byWarning.set(warning, { podName, count: 1 });
      else {
        seen.count++;
        if (podName < seen.podName) seen.podName = podName;
      }
    }
    if (now() >= deadline) {
      checked = index + 1;
      break;
    }
  }

  const warnings: string[] = [];
  if (checked < total) {
    warnings.push(
      `new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`,
    );
  }
  if (byWarning.size > 0) {
    warnings.push(
      `existing pods in namespace ${goQuote(namespace)} violate the new PodSecurity enforce level ${goQuote(levelVersionString(enforce))}`,
    );
  }
  const podLines = [...byWarning].map(([warning, { podName, count }]) => {
    if (count === 1) return `${podName}: ${warning}`;
    if (count === 2) return `${podName} (and 1 other pod): ${warning}`;
    return `${podName} (and ${count - 1} other pods): ${warning}`;
  });
  return [...warnings, ...podLines.sort()];
}

/** Pods without a controller and the first pod of each controller, then the other replicas. */
function prioritizePods(pods: readonly KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [];
  const replicas: KubeObject[] = [];
  const controllers = new Set<string>();
  for (const pod of pods) {
    const controller = pod.metadata?.ownerReferences?.find((ref) => ref.controller === true);
    if (!controller) first.push(pod);
    else if (controllers.has(controller.uid)) replicas.push(pod);
    else {
      controllers.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...replicas];
}

function podSpecOf(pod: KubeObject): PodSpecForPolicy {
  const spec = pod.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as PodSpecForPolicy) : {};
}
