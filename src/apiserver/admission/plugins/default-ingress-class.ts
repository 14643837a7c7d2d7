// DefaultIngressClass (upstream's plugin/pkg/admission/network/defaultingressclass): an Ingress
// created naming no class (neither `spec.ingressClassName` nor the legacy
// `kubernetes.io/ingress.class` annotation) gets the default IngressClass's name; with several
// defaults the newest. Updates are left alone, as upstream's plugin handles only CREATE.
import { defaultIngressClass, LEGACY_CLASS_ANNOTATION } from '../../../api/ingress.js';
import type { IngressClass } from '../../../api/types/networking-v1.generated.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

export function defaultIngressClassAdmission(ingressClasses: ResourceStore): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    admit(attributes: AdmissionAttributes) {
      if (
        attributes.operation !== 'CREATE' ||
        attributes.resource.group !== 'networking.k8s.io' ||
        attributes.resource.resource !== 'ingresses' ||
        attributes.subresource !== ''
      )
        return;
      const spec = (attributes.object.spec ?? {}) as { ingressClassName?: string | null };
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      const annotations = attributes.object.metadata?.annotations;
      if (annotations && LEGACY_CLASS_ANNOTATION in annotations) return;
      return defaultClass(attributes, spec);
    },
  };

  async function defaultClass(
    attributes: AdmissionAttributes,
    spec: { ingressClassName?: string | null },
  ): Promise<void> {
    const { items } = await ingressClasses.list('');
    const chosen = defaultIngressClass(items.map((text) => JSON.parse(text) as IngressClass));
    const name = chosen?.metadata?.name;
    if (!name) return;
    spec.ingressClassName = name;
    attributes.object.spec = spec;
  }
}
