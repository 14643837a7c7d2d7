// The identity of a StatefulSet's pods (pkg/controller/statefulset/stateful_set_utils.go): the
// ordinal name `<set>-<ordinal>`, the pod-name and pod-index labels, hostname and subdomain from
// serviceName, one PersistentVolumeClaim per volumeClaimTemplate and ordinal named
// `<claim>-<set>-<ordinal>`, and the template of a revision.
import type { ControllerRevision, StatefulSet } from '../../api/types/apps-v1.generated.js';
import type {
  PersistentVolumeClaim,
  Pod,
  PodTemplateSpec,
  Volume,
} from '../../api/types/core-v1.generated.js';
import { newControllerRef, type OwnerKind } from '../controller-utils/owner-references.js';
import { podFromTemplate } from '../controller-utils/pod-control.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/controller-history.js';

export const STATEFUL_SET_KIND: OwnerKind = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
/** apps.StatefulSetPodNameLabel */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps.PodIndexLabel */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** The ordinal of a pod named `<set>-<n>`, or -1 when the name is not of that form (getParentNameAndOrdinal). */
export function ordinalOf(pod: Pod, setName: string): number {
  const name = pod.metadata?.name ?? '';
  const match = /^(.*)-([0-9]+)$/.exec(name);
  if (match === null || match[1] !== setName) return -1;
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) ? ordinal : -1;
}

export const podName = (set: StatefulSet, ordinal: number): string =>
  `${set.metadata?.name ?? ''}-${ordinal}`;

export const claimName = (set: StatefulSet, claim: PersistentVolumeClaim, ordinal: number): string =>
  `${claim.metadata?.name ?? ''}-${set.metadata?.name ?? ''}-${ordinal}`;

export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;

export const replicasOf = (set: StatefulSet): number => set.spec?.replicas ?? 1;

/** The claims the pod of this ordinal uses, by volume name (getPersistentVolumeClaims). */
export function podClaims(set: StatefulSet, ordinal: number): Map<string, PersistentVolumeClaim> {
  const claims = new Map<string, PersistentVolumeClaim>();
  const selectorLabels = set.spec?.selector?.matchLabels ?? {};
  for (const template of set.spec?.volumeClaimTemplates ?? []) {
    const name = template.metadata?.name ?? '';
    claims.set(name, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName(set, template, ordinal),
        namespace: set.metadata?.namespace ?? '',
        labels: { ...(template.metadata?.labels ?? {}), ...selectorLabels },
        ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      },
      spec: structuredClone(template.spec ?? {}),
    });
  }
  return claims;
}

/** The pod's volumes with each claim template's volume pointing at the ordinal's claim (updateStorage). */
function withClaimVolumes(set: StatefulSet, ordinal: number, volumes: readonly Volume[]): Volume[] {
  const claims = podClaims(set, ordinal);
  const kept = volumes.filter((volume) => !claims.has(volume.name));
  const claimVolumes = [...claims].map(([name, claim]) => ({
    name,
    persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' },
  }));
  return [...claimVolumes, ...kept];
}

/** newVersionedStatefulSetPod: the template of the given revision with the ordinal's identity and storage. */
export function newStatefulSetPod(
  set: StatefulSet,
  template: PodTemplateSpec,
  revisionHash: string,
  ordinal: number,
): Pod {
  const pod = podFromTemplate(template, set, newControllerRef(set, STATEFUL_SET_KIND));
  const name = podName(set, ordinal);
  const meta = pod.metadata ?? {};
  delete meta.generateName;
  meta.name = name;
  meta.namespace = set.metadata?.namespace ?? '';
  meta.labels = {
    ...(meta.labels ?? {}),
    [POD_NAME_LABEL]: name,
    [POD_INDEX_LABEL]: String(ordinal),
    [CONTROLLER_REVISION_HASH_LABEL]: revisionHash,
  };
  pod.metadata = meta;
  const spec = pod.spec ?? { containers: [] };
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  else delete spec.subdomain;
  const volumes = withClaimVolumes(set, ordinal, spec.volumes ?? []);
  if (volumes.length > 0) spec.volumes = volumes;
  pod.spec = spec;
  return pod;
}

/** identityMatches: the pod's name, namespace, labels and hostname/subdomain fit its ordinal. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod, set.metadata?.name ?? '');
  const labels = pod.metadata?.labels ?? {};
  return (
    ordinal >= 0 &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    labels[POD_NAME_LABEL] === pod.metadata?.name &&
    labels[POD_INDEX_LABEL] === String(ordinal)
  );
}

/** The template a revision recorded (ApplyRevision of its `$patch: replace` template). */
export function templateOfRevision(revision: ControllerRevision, fallback: PodTemplateSpec): PodTemplateSpec {
  const spec = revision.data?.spec as { template?: Record<string, unknown> } | undefined;
  if (spec?.template === undefined) return fallback;
  const { $patch: _replace, ...template } = spec.template;
  return template as PodTemplateSpec;
}

export const revisionHashOf = (pod: Pod): string =>
  pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
