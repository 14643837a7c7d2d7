// DefaultPreemption (PostFilter): when a pod fits nowhere, find nodes where evicting lower-priority
// pods would make room, pick one as Kubernetes does, evict its victims and nominate the node for
// the pod. The evictions run asynchronously; the pod is held out of the queue until they are sent.
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import { podKey } from '../../cache/pod-info.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { ActionType } from '../../framework/events.js';
import { fitErrorMessage, newDiagnosis } from '../../framework/fit-error.js';
import type { FrameworkHandle } from '../../framework/handle.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  PostFilterPlugin,
  PostFilterResult,
  PreEnqueuePlugin,
} from '../../framework/interfaces.js';
import { NodeToStatus } from '../../framework/node-to-status.js';
import { Code, Status } from '../../framework/status.js';
import { PluginNames } from '../names.js';
import { type Candidate, pickOneNodeForPreemption } from './candidates.js';
import { selectVictimsOnNode } from './victims.js';

export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NOT_ELIGIBLE_POLICY_NEVER = 'not eligible due to preemptionPolicy=Never.';
export const NOT_ELIGIBLE_TERMINATING = 'not eligible due to a terminating pod on the nominated node.';
export const WAITING_FOR_PREEMPTION = 'waiting for the preemption for this pod to be finished';

/** The API calls preemption makes; the scheduler's effects implement them. */
export interface PreemptionExecutor {
  /** Adds the DisruptionTarget condition to the victim, deletes it and records the Preempted event. */
  preemptVictim(victim: Pod, preemptor: Pod, nodeName: string): Promise<void>;
  /** Clears status.nominatedNodeName of a lower-priority pod nominated to the chosen node. */
  clearNominatedNodeName(pod: Pod): Promise<void>;
}

export interface DefaultPreemptionArgs {
  /** At least this share of the potential nodes is dry-run (default 10). */
  readonly minCandidateNodesPercentage?: number;
  /** … and at least this many (default 100). */
  readonly minCandidateNodesAbsolute?: number;
  readonly executor?: PreemptionExecutor;
  readonly now?: () => number;
}

function podTerminatingByPreemption(pod: Pod): boolean {
  if (!pod.metadata?.deletionTimestamp) return false;
  const condition = (pod.status?.conditions ?? []).find((c) => c.type === 'DisruptionTarget');
  return (
    condition !== undefined && condition.status === 'True' && condition.reason === 'PreemptionByScheduler'
  );
}

export class DefaultPreemption implements PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions {
  readonly name = PluginNames.DefaultPreemption;
  private readonly minPercentage: number;
  private readonly minAbsolute: number;
  private readonly executor: PreemptionExecutor | undefined;
  private readonly now: () => number;
  /** Pods whose victims are still being evicted. */
  private readonly preempting = new Set<string>();
  /** Settles when the evictions for a pod have been sent (tests wait on it). */
  readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly handle: FrameworkHandle,
    args: DefaultPreemptionArgs = {},
  ) {
    this.minPercentage = args.minCandidateNodesPercentage ?? 10;
    this.minAbsolute = args.minCandidateNodesAbsolute ?? 100;
    this.executor = args.executor;
    this.now = args.now ?? Date.now;
  }

  preEnqueue(pod: Pod): Status | null {
    return this.preempting.has(podKey(pod)) ? Status.unresolvable(WAITING_FOR_PREEMPTION) : null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    // The plugins that rejected the pod decide when it is worth retrying, not preemption.
    return [{ event: { resource: 'AssignedPod', actionType: ActionType.Delete }, hint: () => 'QueueSkip' }];
  }

  postFilter(
    state: CycleState,
    podInfo: PodInfo,
    nodeToStatus: NodeToStatus,
  ): { result: PostFilterResult | null; status: Status } {
    const { result, status } = this.preempt(state, podInfo, nodeToStatus);
    const message = status.message();
    if (message === '') return { result, status };
    return { result, status: new Status(status.code, [`preemption: ${message}`], status.error) };
  }

  /** Whether the pod may preempt: not with preemptionPolicy Never, nor while earlier victims still terminate. */
  podEligibleToPreemptOthers(pod: Pod, nominatedNodeStatus: Status): { eligible: boolean; message: string } {
    if (pod.spec?.preemptionPolicy === 'Never')
      return { eligible: false, message: NOT_ELIGIBLE_POLICY_NEVER };
    const nominated = pod.status?.nominatedNodeName ?? '';
    if (nominated !== '') {
      if (nominatedNodeStatus.code === Code.UnschedulableAndUnresolvable)
        return { eligible: true, message: '' };
      const nodeInfo = this.handle.snapshot().get(nominated);
      const priority = pod.spec?.priority ?? 0;
      for (const other of nodeInfo?.pods ?? []) {
        if (other.priority < priority && podTerminatingByPreemption(other.pod)) {
          return { eligible: false, message: NOT_ELIGIBLE_TERMINATING };
        }
      }
    }
    return { eligible: true, message: '' };
  }

  private preempt(
    state: CycleState,
    podInfo: PodInfo,
    nodeToStatus: NodeToStatus,
  ): { result: PostFilterResult | null; status: Status } {
    const pod = podInfo.pod;
    const { eligible, message } = this.podEligibleToPreemptOthers(
      pod,
      nodeToStatus.get(pod.status?.nominatedNodeName ?? ''),
    );
    if (!eligible) return { result: null, status: Status.unschedulable(message) };

    const allNodes = this.handle.snapshot().nodeInfoList;
    if (allNodes.length === 0)
      return { result: null, status: Status.fromError(new Error('no nodes available')) };
    const { candidates, statuses, errors } = this.findCandidates(state, podInfo, allNodes, nodeToStatus);
    if (candidates.length === 0) {
      if (errors.length > 0) return { result: null, status: new Status(Code.Error, errors) };
      statuses.absentNodesStatus = Status.unresolvable(PREEMPTION_NOT_HELPFUL);
      const diagnosis = newDiagnosis();
      diagnosis.nodeToStatus = statuses;
      return {
        result: { nominatingInfo: { nominatedNodeName: '', mode: 'Override' } },
        status: Status.unschedulable(fitErrorMessage(allNodes.length, diagnosis)),
      };
    }
    const best = pickOneNodeForPreemption(candidates, this.now());
    if (best === undefined || best.nodeName === '') {
      return { result: null, status: Status.unschedulable('no candidate node for preemption') };
    }
    this.prepareCandidate(best, podInfo);
    return {
      result: { nominatingInfo: { nominatedNodeName: best.nodeName, mode: 'Override' } },
      status: new Status(Code.Success),
    };
  }

  /** Dry-runs preemption on the nodes where it may help, from a random offset, until enough candidates. */
  private findCandidates(
    state: CycleState,
    podInfo: PodInfo,
    allNodes: readonly NodeInfo[],
    nodeToStatus: NodeToStatus,
  ): { candidates: Candidate[]; statuses: NodeToStatus; errors: string[] } {
    const statuses = new NodeToStatus();
    const potential = nodeToStatus.nodesForStatusCode(allNodes, Code.Unschedulable);
    if (potential.length === 0) return { candidates: [], statuses, errors: [] };
    const pdbs = [...this.handle.objects.podDisruptionBudgets.list()];
    const count = potential.length;
    const offset = Math.floor(this.handle.random() * count);
    const wanted = Math.min(
      count,
      Math.max(Math.trunc((count * this.minPercentage) / 100), this.minAbsolute),
    );
    const framework = this.handle.framework();
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    const errors: string[] = [];
    const now = this.now();
    for (let index = 0; index < count; index++) {
      const nodeInfo = potential[(offset + index) % count]!.clone();
      const selection = selectVictimsOnNode(framework, state.clone(), podInfo, nodeInfo, pdbs, now);
      if (selection.status === null && selection.victims.length > 0) {
        const candidate = {
          nodeName: nodeInfo.name,
          victims: selection.victims,
          numPDBViolations: selection.numPDBViolations,
        };
        (selection.numPDBViolations === 0 ? nonViolating : violating).push(candidate);
        if (nonViolating.length > 0 && nonViolating.length + violating.length >= wanted) break;
        continue;
      }
      const status =
        selection.status ??
        Status.fromError(
          new Error(`expected at least one victim pod on node ${JSON.stringify(nodeInfo.name)}`),
        );
      if (status.code === Code.Error) errors.push(status.message());
      statuses.set(nodeInfo.name, status);
    }
    return { candidates: [...nonViolating, ...violating], statuses, errors };
  }

  /** Evicts the victims and clears lower-priority nominations on the node, in the background. */
  private prepareCandidate(candidate: Candidate, podInfo: PodInfo): void {
    const preemptor = podInfo.pod;
    const lowerNominated = this.handle.nominator
      .nominatedPodsForNode(candidate.nodeName)
      .filter((other) => other.priority < podInfo.priority)
      .map((other) => other.pod);
    const victims = candidate.victims
      .map((victim) => victim.pod)
      .filter((victim) => !victim.metadata?.deletionTimestamp);
    const executor = this.executor;
    if (executor === undefined || (victims.length === 0 && lowerNominated.length === 0)) return;
    const key = podInfo.key;
    this.preempting.add(key);
    const run = async () => {
      let failed = false;
      await Promise.all(
        lowerNominated.map((other) => executor.clearNominatedNodeName(other).catch(() => undefined)),
      );
      const results = await Promise.allSettled(
        victims.map((victim) => executor.preemptVictim(victim, preemptor, candidate.nodeName)),
      );
      failed = results.some((result) => result.status === 'rejected');
      this.preempting.delete(key);
      this.pending.delete(key);
      // Retry at once after a failure; otherwise only if victim deletions arrived meanwhile.
      this.handle.activate(preemptor, failed ? undefined : this.name);
    };
    this.pending.set(key, run());
  }
}
