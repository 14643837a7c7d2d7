import type { KubeObject } from '../../../api/object.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import {
  applyLimitRangeDefaults,
  type LimitRange,
  validateAgainstLimitRanges,
} from '../limit-ranger/index.js';
import type { ObjectLister } from '../object-cache.js';
import { displayName } from './lookup.js';

async function rangesIn(limitRanges: ObjectLister, namespace: string): Promise<LimitRange[]> {
  const { items } = await limitRanges.list(namespace);
  return items.map((text) => JSON.parse(text) as LimitRange);
}

/**
 * LimitRanger: pods get their namespace's default requests and limits (mutating), and pods
 * and claims must fit its min, max and ratio constraints (validating).
 */
export function limitRangerAdmission(limitRanges: ObjectLister): AdmissionPlugin {
  const applies = (a: AdmissionAttributes) =>
    a.namespace !== '' &&
    a.subresource === '' &&
    ((a.resource.resource === 'pods' && a.operation === 'CREATE') ||
      (a.resource.resource === 'persistentvolumeclaims' && a.operation !== 'DELETE'));
  return {
    name: 'LimitRanger',
    admit(attributes) {
      if (!applies(attributes) || attributes.resource.resource !== 'pods') return;
      return rangesIn(limitRanges, attributes.namespace).then((ranges) => {
        if (ranges.length > 0) applyLimitRangeDefaults(attributes.object as never, ranges);
      });
    },
    validate(attributes) {
      if (!applies(attributes)) return;
      return rangesIn(limitRanges, attributes.namespace).then((ranges) => {
        if (ranges.length === 0) return;
        const kind = attributes.resource.resource === 'pods' ? 'Pod' : 'PersistentVolumeClaim';
        const problem = validateAgainstLimitRanges(kind, attributes.object as KubeObject as never, ranges);
        if (problem !== undefined) {
          throw forbidden(attributes.resource, displayName(attributes.object), problem);
        }
      });
    },
  };
}
