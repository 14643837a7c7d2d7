// What admission expressions see of a request besides the object (upstream's
// CreateAdmissionRequest and CreateNamespaceObject): the `request` and `namespaceObject` variables.
import type { KubeObject } from '../../../api/object.js';
import type { AdmissionAttributes } from '../chain.js';

/** The `request` variable (admission.k8s.io AdmissionRequest as CEL sees it). */
export function admissionRequest(attributes: AdmissionAttributes): Record<string, unknown> {
  const { resource } = attributes;
  const kind = { group: resource.group, version: resource.version, kind: resource.kind };
  const gvr = { group: resource.group, version: resource.version, resource: resource.resource };
  const user = attributes.user;
  return {
    kind,
    resource: gvr,
    subResource: attributes.subresource,
    requestKind: kind,
    requestResource: gvr,
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: {
      username: user?.name ?? '',
      uid: user?.uid ?? '',
      groups: [...(user?.groups ?? [])],
      extra: user?.extra ?? {},
    },
    dryRun: attributes.dryRun,
  };
}

/** The `namespaceObject` variable: the namespace's metadata, spec and status. */
export function namespaceVariable(namespace: KubeObject | undefined): unknown {
  if (namespace === undefined) return null;
  const meta = namespace.metadata ?? {};
  return {
    metadata: {
      name: meta.name,
      generateName: meta.generateName,
      uid: meta.uid,
      labels: meta.labels,
      annotations: meta.annotations,
      creationTimestamp: meta.creationTimestamp,
      deletionTimestamp: meta.deletionTimestamp,
    },
    spec: namespace.spec,
    status: namespace.status,
  };
}
