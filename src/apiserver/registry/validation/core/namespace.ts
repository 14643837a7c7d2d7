// Namespaces: DNS-label names, spec.finalizers names.
import type { KubeObject } from '../../../../api/object.js';
import { type FieldError, fieldInvalid } from '../../../../api/selectors/index.js';
import { fieldsOf, stringsOf } from '../json.js';
import { isQualifiedName, nameIsDnsLabel } from '../names.js';
import { validateKubeFinalizerName, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

/** ValidateNamespace. */
export function validateNamespace(namespace: KubeObject): FieldError[] {
  const errors = validateObjectMeta(namespace.metadata, { namespaced: false, name: nameIsDnsLabel });
  for (const finalizer of stringsOf(fieldsOf(namespace.spec).finalizers)) {
    // Reported at the list's path, without an index, as Kubernetes does.
    for (const problem of isQualifiedName(finalizer))
      errors.push(fieldInvalid('spec.finalizers', finalizer, problem));
    errors.push(...validateKubeFinalizerName(finalizer, 'spec.finalizers'));
  }
  return errors;
}

/** ValidateNamespaceUpdate: only metadata (the strategy keeps the old spec and status). */
export function validateNamespaceUpdate(namespace: KubeObject, old: KubeObject): FieldError[] {
  return validateObjectMetaUpdate(namespace.metadata, old.metadata);
}
