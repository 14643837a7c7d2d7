// Why a pod fits no node (framework.FitError), and the text kube-scheduler puts in the
// FailedScheduling event and the PodScheduled condition:
//   0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 Insufficient cpu. preemption: ...
// Reasons are counted per node, printed as "<count> <reason>" and sorted as Go sorts strings.
import { compareGoStrings } from '../../api/selectors/go-text.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { NodeToStatus } from './node-to-status.js';
import type { Status } from './status.js';
import { Code } from './status.js';

export interface Diagnosis {
  nodeToStatus: NodeToStatus;
  /** Plugins that rejected the pod on some node (or in PreFilter/PreEnqueue). */
  unschedulablePlugins: Set<string>;
  pendingPlugins: Set<string>;
  /** The message of a PreFilter rejection; when set, per-node reasons are not listed. */
  preFilterMsg: string;
  /** What PostFilter (preemption) said. */
  postFilterMsg: string;
}

export function newDiagnosis(): Diagnosis {
  return {
    nodeToStatus: new NodeToStatus(),
    unschedulablePlugins: new Set(),
    pendingPlugins: new Set(),
    preFilterMsg: '',
    postFilterMsg: '',
  };
}

/** Diagnosis.AddPluginStatus: remembers which plugin rejected the pod. */
export function addPluginStatus(diagnosis: Diagnosis, status: Status): void {
  if (status.plugin === '') return;
  if (status.isRejected()) diagnosis.unschedulablePlugins.add(status.plugin);
  if (status.code === Code.Pending) diagnosis.pendingPlugins.add(status.plugin);
}

export const NO_NODE_AVAILABLE_MSG = (count: number) => `0/${count} nodes are available`;

/** The outcome of a cycle that found no node; its message is built on demand (PostFilter adds to it). */
export class FitError {
  constructor(
    readonly pod: Pod,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  get message(): string {
    return fitErrorMessage(this.numAllNodes, this.diagnosis);
  }
}

export function fitErrorMessage(numAllNodes: number, diagnosis: Diagnosis): string {
  let message = `${NO_NODE_AVAILABLE_MSG(numAllNodes)}:`;
  if (diagnosis.preFilterMsg !== '') {
    message += ` ${diagnosis.preFilterMsg}.`;
  } else {
    const counts = new Map<string, number>();
    const statuses = diagnosis.nodeToStatus;
    statuses.forEachExplicit((_, status) => {
      for (const reason of status.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    });
    if (statuses.size < numAllNodes) {
      const absent = numAllNodes - statuses.size;
      for (const reason of statuses.absentNodesStatus.reasons) {
        counts.set(reason, (counts.get(reason) ?? 0) + absent);
      }
    }
    const histogram = [...counts].map(([reason, count]) => `${count} ${reason}`).sort(compareGoStrings);
    if (histogram.length > 0) message += ` ${histogram.join(', ')}.`;
  }
  if (diagnosis.postFilterMsg !== '') message += ` ${diagnosis.postFilterMsg}`;
  return message;
}
