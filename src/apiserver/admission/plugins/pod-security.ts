import type { KubeObject } from '../../../api/object.js';
import { fieldInvalid } from '../../../api/selectors/field-errors.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { forbidden, invalid } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import { POD_TEMPLATE_KINDS, podSecurityDecision } from '../pod-security/admission.js';
import { existingPodWarnings, reviewNamespaceLabels } from '../pod-security/namespace.js';
import { displayName } from './lookup.js';

/**
 * PodSecurity: pods are checked against their namespace's `pod-security.kubernetes.io/*`
 * levels (enforce denies, warn adds warnings); workload templates get warnings only. Namespace
 * writes must carry valid labels, and tightening enforce warns about existing pods.
 */
export function podSecurityAdmission(namespaces: ObjectLister, pods: ResourceStore): AdmissionPlugin {
  return {
    name: 'PodSecurity',
    validate(attributes: AdmissionAttributes) {
      // Connect requests (exec, attach) reach only the webhooks here.
      if (attributes.operation === 'DELETE' || attributes.operation === 'CONNECT') return;
      const kind = attributes.resource.kind;
      if (kind === 'Namespace' && attributes.resource.group === '')
        return validateNamespace(attributes, pods);
      if (attributes.namespace === '') return;
      if (attributes.subresource && kind !== 'Pod') return;
      // Only pods and pod templates are checked: skip the namespace read for everything else.
      if (kind !== 'Pod' && !POD_TEMPLATE_KINDS.has(kind)) return;
      return validatePodLike(attributes, attributes.operation, namespaces);
    },
  };
}

/** A pod or pod template (not a delete) against its namespace's levels. */
async function validatePodLike(
  attributes: AdmissionAttributes,
  operation: 'CREATE' | 'UPDATE',
  namespaces: ObjectLister,
): Promise<void> {
  const kind = attributes.resource.kind;
  const namespace = await namespaces.find('', attributes.namespace);
  const decision = podSecurityDecision({
    namespaceLabels: namespace?.metadata?.labels ?? {},
    kind,
    object: attributes.object as never,
    oldObject: attributes.oldObject as never,
    operation,
    subresource: attributes.subresource,
    namespace: attributes.namespace,
    username: attributes.user?.name,
  });
  if (decision.deny !== undefined) {
    throw forbidden(
      { group: attributes.resource.group, resource: attributes.resource.resource },
      displayName(attributes.object),
      decision.deny,
    );
  }
  attributes.warnings.push(...decision.warnings);
}

async function validateNamespace(attributes: AdmissionAttributes, pods: ResourceStore): Promise<void> {
  // status and finalize cannot change labels.
  if (
    attributes.subresource !== '' ||
    attributes.operation === 'DELETE' ||
    attributes.operation === 'CONNECT'
  )
    return;
  const name = attributes.name;
  const verdict = reviewNamespaceLabels({
    operation: attributes.operation,
    labels: attributes.object.metadata?.labels,
    oldLabels: attributes.oldObject?.metadata?.labels,
  });
  if (verdict.action === 'reject') {
    throw invalid(
      '',
      'Namespace',
      name,
      verdict.errors.map((error) => fieldInvalid(error.field, error.value, error.detail)),
    );
  }
  if (verdict.action !== 'check-pods') return;
  let existing: KubeObject[];
  try {
    existing = (await pods.list(name)).items.map((text) => JSON.parse(text) as KubeObject);
  } catch (error) {
    console.error(`PodSecurity: failed to list pods in namespace ${name}:`, error);
    attributes.warnings.push('failed to list pods while checking new PodSecurity enforce level');
    return;
  }
  attributes.warnings.push(...existingPodWarnings(name, verdict.enforce, existing));
}
