import type { KubeObject } from '../../../api/object.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import { displayName } from './lookup.js';

interface PriorityClass {
  metadata?: { name?: string };
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

interface PodSpec {
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
}

/** The two classes every cluster has (created at start). */
export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2000001000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2000000000,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

/**
 * The Priority admission plugin: a pod's priority comes from its PriorityClass (or the global
 * default class, or 0); a set priority that disagrees, or an unknown class, is refused.
 */
export function priorityAdmission(priorityClasses: ObjectLister): AdmissionPlugin {
  return {
    name: 'Priority',
    admit(attributes: AdmissionAttributes) {
      if (
        attributes.operation !== 'CREATE' ||
        attributes.resource.resource !== 'pods' ||
        attributes.subresource
      )
        return;
      return admitPodPriority(attributes);
    },
  };

  async function admitPodPriority(attributes: AdmissionAttributes): Promise<void> {
    const pod = attributes.object;
    const refuse = (why: string) => forbidden({ group: '', resource: 'pods' }, displayName(pod), why);
    const spec = (pod.spec ?? {}) as PodSpec;
    let priority = 0;
    let preemptionPolicy: string | undefined;
    if (spec.priorityClassName) {
      const found = (await priorityClasses.find('', spec.priorityClassName)) as PriorityClass | undefined;
      if (!found) {
        throw refuse(`no PriorityClass with name ${spec.priorityClassName} was found`);
      }
      priority = found.value ?? 0;
      preemptionPolicy = found.preemptionPolicy;
    } else {
      const { items } = await priorityClasses.list('');
      const defaults = items.map((text) => JSON.parse(text) as PriorityClass).filter((c) => c.globalDefault);
      // Several global defaults: the lowest value wins, as Kubernetes picks.
      const chosen = defaults.sort((a, b) => (a.value ?? 0) - (b.value ?? 0))[0];
      if (chosen) {
        spec.priorityClassName = chosen.metadata?.name;
        priority = chosen.value ?? 0;
        preemptionPolicy = chosen.preemptionPolicy;
      }
    }
    if (spec.priority !== undefined && spec.priority !== priority) {
      throw refuse(
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
      );
    }
    spec.priority = priority;
    // Without a class (and no global default) the computed policy is PreemptLowerPriority.
    const computed = preemptionPolicy ?? 'PreemptLowerPriority';
    if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== computed) {
      throw refuse(
        `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${computed} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = computed;
    pod.spec = spec as KubeObject['spec'];
  }
}
