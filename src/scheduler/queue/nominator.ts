// Pods nominated to a node by preemption (the queue's nominator): while their victims terminate,
// lower-or-equal priority pods must not take the room they were promised.
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { PodInfo } from '../cache/pod-info.js';
import { podKey } from '../cache/pod-info.js';
import type { PodNominator } from '../framework/handle.js';
import type { NominatingInfo } from '../framework/interfaces.js';

export class Nominator implements PodNominator {
  private readonly byNode = new Map<string, PodInfo[]>();
  private readonly nodeOfPod = new Map<string, string>();

  hasNominatedPods(): boolean {
    return this.nodeOfPod.size > 0;
  }

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.byNode.get(nodeName) ?? [];
  }

  nominatedNodeOf(pod: Pod): string | undefined {
    return this.nodeOfPod.get(podKey(pod));
  }

  /**
   * Records where the pod is nominated: the given node in Override mode, else the pod's
   * status.nominatedNodeName; an empty name removes the nomination.
   */
  addNominatedPod(podInfo: PodInfo, nominating: NominatingInfo | null): void {
    this.deleteNominatedPodIfExists(podInfo.pod);
    let nodeName = podInfo.pod.status?.nominatedNodeName ?? '';
    if (nominating !== null && nominating.mode === 'Override') nodeName = nominating.nominatedNodeName;
    if (nodeName === '') return;
    // A pod already bound has no nomination to keep.
    if (podInfo.pod.spec?.nodeName) return;
    this.nodeOfPod.set(podInfo.key, nodeName);
    let pods = this.byNode.get(nodeName);
    if (pods === undefined) {
      pods = [];
      this.byNode.set(nodeName, pods);
    }
    if (!pods.some((existing) => existing.key === podInfo.key)) pods.push(podInfo);
  }

  deleteNominatedPodIfExists(pod: Pod): void {
    const key = podKey(pod);
    const nodeName = this.nodeOfPod.get(key);
    if (nodeName === undefined) return;
    this.nodeOfPod.delete(key);
    const pods = this.byNode.get(nodeName);
    if (pods === undefined) return;
    const remaining = pods.filter((existing) => existing.key !== key);
    if (remaining.length === 0) this.byNode.delete(nodeName);
    else this.byNode.set(nodeName, remaining);
  }

  /**
   * An update keeps the nomination unless the pod now carries another one (or, if its
   * nominatedNodeName was cleared, drops it).
   */
  updateNominatedPod(oldPod: Pod, newPodInfo: PodInfo): void {
    const before = this.nodeOfPod.get(podKey(oldPod));
    let nominating: NominatingInfo | null = null;
    const oldNominated = oldPod.status?.nominatedNodeName ?? '';
    const newNominated = newPodInfo.pod.status?.nominatedNodeName ?? '';
    if (before !== undefined && oldNominated === '' && newNominated === '') {
      // The scheduler nominated it before the API server recorded it; keep that.
      nominating = { nominatedNodeName: before, mode: 'Override' };
    }
    this.deleteNominatedPodIfExists(oldPod);
    this.addNominatedPod(newPodInfo, nominating);
  }
}
