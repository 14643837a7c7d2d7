/** Wording helpers shared by the checks, so their messages read exactly like Kubernetes'. */

import type { PodContainer, PodSpecForPolicy } from './types.js';

/** `"a", "b"` — each item in double quotes, comma separated. */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` or `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** Sorted, de-duplicated, like Go's sets.String.List(). */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Go's %q for the plain strings labels and annotations hold. */
export function goQuote(value: string): string {
  return JSON.stringify(value);
}

/** Init containers, then containers, then ephemeral containers — the order messages list them in. */
export function allContainers(spec: PodSpecForPolicy): PodContainer[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

export function containerName(container: PodContainer): string {
  return container.name ?? '';
}

export function isWindowsPod(spec: PodSpecForPolicy): boolean {
  return spec.os?.name === 'windows';
}
