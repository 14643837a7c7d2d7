// The metadata cells nearly every printer shows.
import type { KubeObject } from '../../api/object.js';
import { at, str } from './access.js';
import { since } from './duration.js';

export function nameOf(object: KubeObject): string {
  return str(object, 'metadata', 'name');
}

/** The Age cell: time since creation, `<unknown>` without a creation timestamp. */
export function ageOf(object: KubeObject, now: Date): string {
  return since(at(object, 'metadata', 'creationTimestamp'), now);
}

/** True once metadata.deletionTimestamp is set. */
export function isDeleting(object: KubeObject): boolean {
  return typeof at(object, 'metadata', 'deletionTimestamp') === 'string';
}
