import type { KubeObject } from '../../../api/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}

const DEFAULT_SECONDS = 300;
const TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/** DefaultTolerationSeconds: pods tolerate not-ready and unreachable nodes for 300 s unless they say otherwise. */
export const defaultTolerationSecondsAdmission: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  admit(attributes: AdmissionAttributes) {
    if (
      attributes.operation !== 'CREATE' ||
      attributes.resource.resource !== 'pods' ||
      attributes.subresource
    )
      return;
    const spec = (attributes.object.spec ?? {}) as { tolerations?: Toleration[] };
    const tolerations = spec.tolerations ?? [];
    const covers = (key: string) =>
      tolerations.some(
        (t) =>
          (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') &&
          (t.key === key || ((t.key === undefined || t.key === '') && t.operator === 'Exists')),
      );
    for (const key of TAINTS) {
      if (!covers(key))
        tolerations.push({
          key,
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: DEFAULT_SECONDS,
        });
    }
    spec.tolerations = tolerations;
    attributes.object.spec = spec as KubeObject['spec'];
  },
};
