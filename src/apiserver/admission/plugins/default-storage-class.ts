import type { ResourceStore } from '../../registry/resource-store.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

const DEFAULT_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** DefaultStorageClass: a PVC that names no class gets the default one (the newest, if several). */
export function defaultStorageClassAdmission(storageClasses: ResourceStore): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    admit(attributes: AdmissionAttributes) {
      if (attributes.operation !== 'CREATE' || attributes.resource.resource !== 'persistentvolumeclaims')
        return;
      return defaultClass(attributes);
    },
  };

  async function defaultClass(attributes: AdmissionAttributes): Promise<void> {
    const spec = (attributes.object.spec ?? {}) as { storageClassName?: string };
    if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
    const { items } = await storageClasses.list('');
    const defaults = items
      .map(
        (text) =>
          JSON.parse(text) as {
            metadata?: { name?: string; creationTimestamp?: string; annotations?: Record<string, string> };
          },
      )
      .filter((c) => c.metadata?.annotations?.[DEFAULT_ANNOTATION] === 'true')
      .sort((a, b) =>
        (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? ''),
      );
    const chosen = defaults[0]?.metadata?.name;
    if (chosen) {
      spec.storageClassName = chosen;
      attributes.object.spec = spec;
    }
  }
}
