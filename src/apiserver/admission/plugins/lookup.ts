import type { KubeObject } from '../../../api/object.js';

/** The name admission messages use: generateName pods are named by their prefix. */
export function displayName(object: KubeObject): string {
  return object.metadata?.name || object.metadata?.generateName || '';
}
