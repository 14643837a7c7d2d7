// Informer transforms (client-go's TransformFunc). kube-controller-manager and kube-scheduler drop
// `.metadata.managedFields` from their caches: nothing in them reads it, an Update without it keeps
// the live object's, and on a big object it is the larger half of every cached copy.
import type { ApiObject } from '../types.js';

/** The object without managedFields (a shallow copy: the decoded event may have other holders). */
export function stripManagedFields(object: ApiObject): ApiObject {
  if (object.metadata?.managedFields === undefined) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}
