// LimitRanger's mutating half: containers get the Container defaults of each LimitRange for the
// requests and limits they leave unset, and the pod is annotated with what was filled in.

import { isJsonObject, type JsonObject, type KubeObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';
import { podContainers } from '../quota/pod-resources.js';
import type { LimitRange } from './types.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

interface ContainerDefaults {
  requests: Record<string, string>;
  limits: Record<string, string>;
}

function canonical(value: unknown): string | undefined {
  return Quantity.tryFromJson(value)?.toString();
}

function defaultsOf(limitRange: LimitRange): ContainerDefaults {
  const defaults: ContainerDefaults = { requests: {}, limits: {} };
  for (const item of limitRange.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    for (const [name, value] of Object.entries(item.defaultRequest ?? {})) {
      const text = canonical(value);
      if (text !== undefined) defaults.requests[name] = text;
    }
    for (const [name, value] of Object.entries(item.default ?? {})) {
      const text = canonical(value);
      if (text !== undefined) defaults.limits[name] = text;
    }
  }
  return defaults;
}

/** Fills in the missing entries of one side; returns the names it set, sorted. */
function fill(
  container: JsonObject,
  side: 'requests' | 'limits',
  defaults: Record<string, string>,
): string[] {
  const set: string[] = [];
  for (const [name, value] of Object.entries(defaults)) {
    const resources = isJsonObject(container.resources) ? container.resources : {};
    const current = isJsonObject(resources[side]) ? resources[side] : {};
    if (Object.hasOwn(current, name)) continue;
    container.resources = { ...resources, [side]: { ...current, [name]: value } };
    set.push(name);
  }
  return set.sort();
}

function applyOne(pod: KubeObject, limitRange: LimitRange): void {
  const defaults = defaultsOf(limitRange);
  const notes: string[] = [];
  const groups = [
    ['container', podContainers(pod, 'containers')],
    ['init container', podContainers(pod, 'initContainers')],
  ] as const;
  for (const [label, containers] of groups) {
    for (const container of containers) {
      const name = typeof container.name === 'string' ? container.name : '';
      const limits = fill(container, 'limits', defaults.limits);
      const requests = fill(container, 'requests', defaults.requests);
      if (requests.length > 0) notes.push(`${requests.join(', ')} request for ${label} ${name}`);
      if (limits.length > 0) notes.push(`${limits.join(', ')} limit for ${label} ${name}`);
    }
  }
  if (notes.length === 0) return;
  pod.metadata ??= {};
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}`,
  };
}

/**
 * Applies the Container defaults of every LimitRange in turn (so the first range that names a
 * resource decides it), changing `pod` in place. Only pod creation is defaulted.
 */
export function applyLimitRangeDefaults<T extends KubeObject>(pod: T, limitRanges: readonly LimitRange[]): T {
  for (const limitRange of limitRanges) applyOne(pod, limitRange);
  return pod;
}
