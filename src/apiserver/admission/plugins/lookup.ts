import type { KubeObject } from '../../../api/object.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { StatusError } from '../../status.js';

/** A read for admission plugins: the object, or undefined when it does not exist. */
export async function find(
  store: ResourceStore,
  namespace: string,
  name: string,
): Promise<KubeObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (error) {
    if (error instanceof StatusError && error.code === 404) return undefined;
    throw error;
  }
}

/** The name admission messages use: generateName pods are named by their prefix. */
export function displayName(object: KubeObject): string {
  return object.metadata?.name || object.metadata?.generateName || '';
}
