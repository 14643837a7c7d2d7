// The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass): a new pod that names a
// RuntimeClass gets the class's pod overhead and its scheduling constraints (node selector,
// tolerations); an overhead the class does not define is refused, so the scheduler, quota and the
// kubelet can trust spec.overhead.
import type { KubeObject } from '../../../api/object.js';
import type { Toleration } from '../../../api/types/core-v1.generated.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import { sameResourceList } from '../quota/resource-list.js';
import { displayName } from './lookup.js';

interface RuntimeClass {
  overhead?: { podFixed?: Record<string, string> };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

interface PodSpec {
  runtimeClassName?: string;
  overhead?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
}

const PODS = { group: '', resource: 'pods' };
const MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
const WITHOUT_CLASS = 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead';

export function runtimeClassAdmission(runtimeClasses: ObjectLister): AdmissionPlugin {
  /** The pod's RuntimeClass, if it names one; refuses a class that does not exist. */
  const classOf = async (attributes: AdmissionAttributes): Promise<RuntimeClass | undefined> => {
    const name = (attributes.object.spec as PodSpec | undefined)?.runtimeClassName;
    if (name === undefined || name === null) return undefined;
    const runtimeClass = (await runtimeClasses.find('', name)) as RuntimeClass | undefined;
    if (!runtimeClass) {
      throw forbidden(PODS, displayName(attributes.object), `pod rejected: RuntimeClass "${name}" not found`);
    }
    return runtimeClass;
  };
  // Both phases answer synchronously for pods that name no class and set no overhead.
  return {
    name: 'RuntimeClass',
    admit(attributes) {
      if (!isPodCreate(attributes) || !specOf(attributes).runtimeClassName) return;
      return classOf(attributes).then((runtimeClass) => applyRuntimeClass(attributes, runtimeClass!));
    },
    validate(attributes) {
      if (!isPodCreate(attributes)) return;
      const spec = specOf(attributes);
      if (!spec.runtimeClassName && !hasEntries(spec.overhead)) return;
      return classOf(attributes).then((runtimeClass) => {
        if (!hasEntries(spec.overhead)) return;
        const defined = runtimeClass?.overhead;
        if (!defined) throw forbidden(PODS, displayName(attributes.object), WITHOUT_CLASS);
        if (!sameResourceList(defined.podFixed, spec.overhead)) {
          throw forbidden(PODS, displayName(attributes.object), MISMATCH);
        }
      });
    },
  };
}

function isPodCreate(attributes: AdmissionAttributes): boolean {
  return (
    attributes.operation === 'CREATE' &&
    attributes.resource.group === '' &&
    attributes.resource.resource === 'pods' &&
    !attributes.subresource
  );
}

function specOf(attributes: AdmissionAttributes): PodSpec {
  return (attributes.object.spec ?? {}) as PodSpec;
}

/** Sets the class's overhead on the pod and merges the class's scheduling constraints into it. */
function applyRuntimeClass(attributes: AdmissionAttributes, runtimeClass: RuntimeClass): void {
  const spec = specOf(attributes);
  const fixed = runtimeClass.overhead?.podFixed;
  if (runtimeClass.overhead) {
    if (hasEntries(spec.overhead) && !sameResourceList(fixed, spec.overhead)) {
      throw forbidden(PODS, displayName(attributes.object), MISMATCH);
    }
    if (fixed) spec.overhead = { ...fixed };
    else delete spec.overhead;
  }
  const scheduling = runtimeClass.scheduling;
  if (scheduling) {
    const selector = spec.nodeSelector ? { ...spec.nodeSelector } : undefined;
    for (const [key, value] of Object.entries(scheduling.nodeSelector ?? {})) {
      const podValue = selector?.[key];
      if (podValue !== undefined && podValue !== value) {
        throw forbidden(
          PODS,
          displayName(attributes.object),
          `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`,
        );
      }
    }
    const merged = selector ? { ...selector, ...scheduling.nodeSelector } : scheduling.nodeSelector;
    if (merged) spec.nodeSelector = merged;
    const tolerations = mergeTolerations(spec.tolerations ?? [], scheduling.tolerations ?? []);
    if (tolerations.length > 0 || spec.tolerations) spec.tolerations = tolerations;
  }
  attributes.object.spec = spec as KubeObject['spec'];
}

function hasEntries(list: Record<string, string> | undefined): boolean {
  return list !== undefined && list !== null && Object.keys(list).length > 0;
}

/**
 * util/tolerations.MergeTolerations: both lists, dropping a toleration another one kept (or a
 * later different one) already covers; of two equal ones the first stays.
 */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((toleration, index) => {
    if (merged.some((kept) => isSuperset(kept, toleration))) return;
    const coveredLater = all
      .slice(index + 1)
      .some((later) => !sameToleration(toleration, later) && isSuperset(later, toleration));
    if (!coveredLater) merged.push(toleration);
  });
  return merged;
}

function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    a.tolerationSeconds === b.tolerationSeconds
  );
}

/** Whether `wider` tolerates everything `toleration` does. */
function isSuperset(wider: Toleration, toleration: Toleration): boolean {
  if (sameToleration(wider, toleration)) return true;
  const widerKey = wider.key ?? '';
  // An empty key with Exists matches every key.
  if ((toleration.key ?? '') !== widerKey && (widerKey !== '' || wider.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if ((toleration.effect ?? '') !== (wider.effect ?? '') && (wider.effect ?? '') !== '') return false;
  if (
    wider.effect === 'NoExecute' &&
    wider.tolerationSeconds !== undefined &&
    wider.tolerationSeconds !== null
  ) {
    if (
      toleration.tolerationSeconds === undefined ||
      toleration.tolerationSeconds === null ||
      toleration.tolerationSeconds > wider.tolerationSeconds
    )
      return false;
  }
  switch (wider.operator ?? '') {
    case 'Equal':
    case '':
      return toleration.operator === 'Equal' && (toleration.value ?? '') === (wider.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}
