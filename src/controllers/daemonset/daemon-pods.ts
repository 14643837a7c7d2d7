// The pods a DaemonSet runs (pkg/controller/daemon/util and the predicates of daemon_controller.go):
// the template with the tolerations every daemon pod gets, pinned to one node through required
// node affinity on metadata.name, whether a node should run (or keep running) the pod, and the
// node a pod targets.

import { TEMPLATE_GENERATION_ANNOTATION, TEMPLATE_GENERATION_LABEL } from '../../api/daemon-sets.js';
import { RequiredNodeAffinity } from '../../api/scheduling/node-selector.js';
import { findMatchingUntoleratedTaint } from '../../api/scheduling/taints.js';
import type { DaemonSet } from '../../api/types/apps-v1.generated.js';
import type { Affinity, Node, Pod, PodTemplateSpec, Toleration } from '../../api/types/core-v1.generated.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/controller-history.js';

const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });

/** AddOrUpdateDaemonPodTolerations: a daemon pod survives node conditions that evict other pods. */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  return [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
    ...(hostNetwork ? [exists('node.kubernetes.io/network-unavailable', 'NoSchedule')] : []),
  ];
}

function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? 'Equal') === (b.operator ?? 'Equal') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '')
  );
}

/** The template's tolerations plus the daemon ones it lacks (AddOrUpdateTolerationInPodSpec). */
export function withDaemonTolerations(template: PodTemplateSpec): Toleration[] {
  const tolerations = [...(template.spec?.tolerations ?? [])];
  for (const toleration of daemonPodTolerations(template.spec?.hostNetwork === true)) {
    const index = tolerations.findIndex(
      (existing) => (existing.key ?? '') === toleration.key && (existing.effect ?? '') === toleration.effect,
    );
    if (index < 0) tolerations.push(toleration);
    else if (!sameToleration(tolerations[index]!, toleration)) tolerations[index] = toleration;
  }
  return tolerations;
}

/**
 * ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms keep their label expressions and
 * gain `metadata.name In [node]` in place of any field terms; with none, that is the only term.
 */
export function pinnedToNode(affinity: Affinity | undefined, nodeName: string): Affinity {
  const nameRequirement = { key: 'metadata.name', operator: 'In', values: [nodeName] };
  const required = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const existing = required?.nodeSelectorTerms ?? [];
  const terms =
    existing.length === 0
      ? [{ matchFields: [nameRequirement] }]
      : existing.map((term) => ({
          ...(term.matchExpressions ? { matchExpressions: term.matchExpressions } : {}),
          matchFields: [nameRequirement],
        }));
  return {
    ...(affinity ?? {}),
    nodeAffinity: {
      ...(affinity?.nodeAffinity ?? {}),
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms },
    },
  };
}

/** The template of the pod for one node (util.CreatePodTemplate plus the node affinity syncNodes sets). */
export function daemonPodTemplate(
  daemonSet: DaemonSet,
  hash: string,
  nodeName: string | undefined,
): PodTemplateSpec {
  const template = structuredClone(daemonSet.spec?.template ?? {});
  const spec = template.spec ?? { containers: [] };
  spec.tolerations = withDaemonTolerations(template);
  if (nodeName !== undefined) spec.affinity = pinnedToNode(spec.affinity, nodeName);
  template.spec = spec;
  const generation = daemonSet.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: {
      ...(template.metadata?.labels ?? {}),
      ...(generation !== undefined ? { [TEMPLATE_GENERATION_LABEL]: generation } : {}),
      ...(hash ? { [CONTROLLER_REVISION_HASH_LABEL]: hash } : {}),
    },
  };
  return template;
}

export interface NodePlacement {
  /** The daemon pod should be started on the node. */
  readonly shouldRun: boolean;
  /** A daemon pod already there may stay (only NoExecute taints evict it). */
  readonly shouldContinueRunning: boolean;
}

/**
 * NodeShouldRunDaemonPod for many nodes: the pod a DaemonSet would create, built once (its pin to
 * the node is left out: it names the very node checked, so it always matches).
 */
export class DaemonPlacement {
  private readonly affinity: RequiredNodeAffinity;
  private readonly tolerations: Toleration[];

  constructor(daemonSet: DaemonSet) {
    const template = daemonPodTemplate(daemonSet, '', undefined);
    const spec = { ...(template.spec ?? { containers: [] }) };
    // Each required term is checked with its field terms replaced by the node's own name, which
    // matches: only the label expressions count, and a term without any matches every node.
    const terms =
      spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    if (terms !== undefined && terms.length > 0) {
      const anyNode = terms.some((term) => (term.matchExpressions ?? []).length === 0);
      spec.affinity = {
        ...spec.affinity,
        nodeAffinity: {
          ...spec.affinity?.nodeAffinity,
          requiredDuringSchedulingIgnoredDuringExecution: anyNode
            ? undefined
            : { nodeSelectorTerms: terms.map((term) => ({ matchExpressions: term.matchExpressions ?? [] })) },
        },
      };
    }
    this.affinity = new RequiredNodeAffinity({ metadata: {}, spec });
    this.tolerations = template.spec?.tolerations ?? [];
  }

  /** Node affinity and nodeSelector first, then the node's taints against the tolerations. */
  on(node: Node): NodePlacement {
    if (!this.affinity.matchesNode(node)) return { shouldRun: false, shouldContinueRunning: false };
    const taints = node.spec?.taints ?? [];
    if (taints.length === 0) return { shouldRun: true, shouldContinueRunning: true };
    const untoleratedSchedule = findMatchingUntoleratedTaint(
      taints,
      this.tolerations,
      (taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute',
    );
    const untoleratedExecute = findMatchingUntoleratedTaint(
      taints,
      this.tolerations,
      (taint) => taint.effect === 'NoExecute',
    );
    return {
      shouldRun: untoleratedSchedule === undefined,
      shouldContinueRunning: untoleratedExecute === undefined,
    };
  }
}

/** NodeShouldRunDaemonPod for one node. */
export function nodeShouldRunDaemonPod(node: Node, daemonSet: DaemonSet): NodePlacement {
  return new DaemonPlacement(daemonSet).on(node);
}

/** GetTargetNodeName: the pod's node, or the one its required node affinity pins it to. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const term of terms ?? []) {
    for (const field of term.matchFields ?? []) {
      if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1) {
        return field.values[0];
      }
    }
  }
  return undefined;
}

/** Whether the pod was made from the revision with this hash (util.IsPodUpdated). */
export function isPodUpdated(pod: Pod, hash: string): boolean {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash;
}

/** Oldest first; on equal times, pods further along (Running before Pending) first. */
export function byCreationThenPhase(a: Pod, b: Pod): number {
  const at = a.metadata?.creationTimestamp ?? '';
  const bt = b.metadata?.creationTimestamp ?? '';
  if (at !== bt) return at < bt ? -1 : 1;
  const rank = (pod: Pod): number =>
    pod.status?.phase === 'Running' ? 0 : pod.status?.phase === 'Pending' ? 1 : 2;
  return rank(a) - rank(b);
}
