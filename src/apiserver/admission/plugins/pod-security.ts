import type { ResourceStore } from '../../registry/resource-store.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import { POD_TEMPLATE_KINDS, podSecurityDecision } from '../pod-security/admission.js';
import { displayName } from './lookup.js';

/**
 * PodSecurity: pods are checked against their namespace's `pod-security.kubernetes.io/*`
 * levels (enforce denies, warn adds warnings); workload templates get warnings only.
 */
export function podSecurityAdmission(namespaces: ResourceStore): AdmissionPlugin {
  return {
    name: 'PodSecurity',
    async validate(attributes: AdmissionAttributes) {
      if (attributes.operation === 'DELETE' || attributes.namespace === '') return;
      const kind = attributes.resource.kind;
      if (attributes.subresource && kind !== 'Pod') return;
      // Only pods and pod templates are checked: skip the namespace read for everything else.
      if (kind !== 'Pod' && !POD_TEMPLATE_KINDS.has(kind)) return;
      const namespace = await namespaces.find('', attributes.namespace);
      const decision = podSecurityDecision({
        namespaceLabels: namespace?.metadata?.labels ?? {},
        kind,
        object: attributes.object as never,
        oldObject: attributes.oldObject as never,
        operation: attributes.operation,
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
    },
  };
}
