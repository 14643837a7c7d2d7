import type { KubeObject } from '../../../api/object.js';
import type { Strategy } from '../strategy.js';

interface NamespaceShape {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

/**
 * Namespaces start Active with the `kubernetes` finalizer; deleting one turns it
 * Terminating until the namespace controller has emptied it and cleared spec.finalizers.
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
  prepareForUpdate(object: KubeObject, old: KubeObject) {
    object.status = old.status;
    // spec.finalizers change only through the finalize subresource.
    (object as NamespaceShape).spec = {
      ...(object as NamespaceShape).spec,
      finalizers: (old as NamespaceShape).spec?.finalizers,
    };
  },
  finalizationPending(object: KubeObject) {
    return ((object as NamespaceShape).spec?.finalizers ?? []).length > 0;
  },
  markDeleting(object: KubeObject) {
    const ns = object as NamespaceShape;
    ns.status = { ...ns.status, phase: 'Terminating' };
  },
};
