// TaintNodesByCondition (plugin/pkg/admission/nodetaint): a new Node starts with the NoSchedule
// `node.kubernetes.io/not-ready` taint, so nothing is scheduled to it before the node lifecycle
// controller has seen it Ready and taken the taint off.
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

interface Taint {
  key?: string;
  effect?: string;
}

const NOT_READY = 'node.kubernetes.io/not-ready';

export const taintNodesByConditionAdmission: AdmissionPlugin = {
  name: 'TaintNodesByCondition',
  admit(attributes: AdmissionAttributes) {
    if (
      attributes.operation !== 'CREATE' ||
      attributes.resource.resource !== 'nodes' ||
      attributes.subresource
    ) {
      return;
    }
    const spec = (attributes.object.spec ?? {}) as { taints?: Taint[] };
    const taints = spec.taints ?? [];
    if (taints.some((taint) => taint.key === NOT_READY && taint.effect === 'NoSchedule')) return;
    spec.taints = [...taints, { key: NOT_READY, effect: 'NoSchedule' }];
    attributes.object.spec = spec;
  },
};
