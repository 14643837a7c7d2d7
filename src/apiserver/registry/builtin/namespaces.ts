import type { KubeObject } from '../../../api/object.js';
import { type FieldError, fieldInvalid, isQualifiedName } from '../../../api/selectors/index.js';
import type { Strategy } from '../strategy.js';
import { validateNamespaceUpdate } from '../validation/core/namespace.js';
import { validateKubeFinalizerName } from '../validation/object-meta.js';

interface NamespaceShape {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

/**
 * Namespaces start Active with the `kubernetes` finalizer; deleting one turns it
 * Terminating until the namespace controller has emptied it and cleared spec.finalizers
 * through the `finalize` subresource. The write that leaves a Terminating namespace with no
 * finalizers of either kind deletes it.
 */
export const namespaceStrategy: Partial<Strategy> = {
  defaults(object: KubeObject) {
    const ns = object as NamespaceShape;
    ns.spec ??= {};
    if (ns.spec.finalizers === undefined) ns.spec.finalizers = ['kubernetes'];
  },
  prepareForCreate(object: KubeObject) {
    (object as NamespaceShape).status = { phase: 'Active' };
  },
  prepareForUpdate(object: KubeObject, old: KubeObject, subresource: string) {
    object.status = old.status;
    // spec.finalizers change only through the finalize subresource, which changes nothing else
    // of the spec (kube-apiserver's namespaceFinalizeStrategy).
    if (subresource === 'finalize') return;
    (object as NamespaceShape).spec = {
      ...(object as NamespaceShape).spec,
      finalizers: (old as NamespaceShape).spec?.finalizers,
    };
  },
  validateUpdate(object: KubeObject, old: KubeObject) {
    // Main-resource updates keep the stored finalizers, so this only ever rejects a finalize's.
    return [...validateNamespaceUpdate(object, old), ...validateFinalizeNames(object)];
  },
  finalizationPending(object: KubeObject) {
    return ((object as NamespaceShape).spec?.finalizers ?? []).length > 0;
  },
  markDeleting(object: KubeObject) {
    const ns = object as NamespaceShape;
    ns.status = { ...ns.status, phase: 'Terminating' };
  },
};

/** ValidateNamespaceFinalizeUpdate's check of spec.finalizers, reported per index. */
function validateFinalizeNames(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const finalizers = (object as NamespaceShape).spec?.finalizers ?? [];
  finalizers.forEach((finalizer, i) => {
    const path = `spec.finalizers[${i}]`;
    for (const problem of isQualifiedName(finalizer)) errors.push(fieldInvalid(path, finalizer, problem));
    errors.push(...validateKubeFinalizerName(finalizer, path));
  });
  return errors;
}
