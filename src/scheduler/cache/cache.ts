// The scheduler's cache (internal/cache): nodes and the pods on them, including pods the scheduler
// has *assumed* onto a node while their binding is still in flight. A pod is assumed when its
// binding starts, confirmed when the informer reports it bound, and forgotten when binding fails.
// Each scheduling cycle works on a snapshot refreshed from the nodes changed since the last one.
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import { type ImageStateSummary, NodeInfo } from './node-info.js';
import { NodeTree } from './node-tree.js';
import { PodInfo, podKey, podNamespacedName } from './pod-info.js';
import type { Snapshot } from './snapshot.js';

interface PodState {
  pod: Pod;
  podInfo: PodInfo;
  bindingFinished: boolean;
  /** When an assumed pod whose binding finished expires (ms); undefined: never. */
  deadline: number | undefined;
}

interface ImageState {
  readonly summary: ImageStateSummary;
  readonly nodes: Set<string>;
}

export interface SchedulerCacheOptions {
  /** How long an assumed pod may stay unconfirmed after its binding finished; 0 (default): forever. */
  readonly assumedPodTtlMs?: number;
  readonly now?: () => number;
}

export class CacheError extends Error {
  override name = 'CacheError';
}

/** normalizedImageName: `name` and `name:latest` are the same image. */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

export class SchedulerCache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly podStates = new Map<string, PodState>();
  private readonly assumedPods = new Set<string>();
  private readonly tree = new NodeTree();
  private readonly images = new Map<string, ImageState>();
  /** Nodes changed since the last snapshot update. */
  private readonly dirty = new Set<string>();
  private structureChanged = true;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: SchedulerCacheOptions = {}) {
    this.ttlMs = options.assumedPodTtlMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  get nodeCount(): number {
    return this.tree.numNodes;
  }

  get podCount(): number {
    return this.podStates.size;
  }

  /** The live node info (tests and diagnostics; cycles use the snapshot). */
  nodeInfo(name: string): NodeInfo | undefined {
    return this.nodes.get(name);
  }

  isAssumedPod(pod: Pod): boolean {
    return this.assumedPods.has(podKey(pod));
  }

  getPod(pod: Pod): Pod | undefined {
    return this.podStates.get(podKey(pod))?.pod;
  }

  /** Counts the pod on `pod.spec.nodeName` before the API server knows; throws if already cached. */
  assumePod(pod: Pod, podInfo?: PodInfo): void {
    const key = podKey(pod);
    if (this.podStates.has(key))
      throw new CacheError(`pod ${podNamespacedName(pod)} is in the cache, so can't be assumed`);
    this.addPodInternal(pod, true, podInfo);
  }

  /** The binding call returned; from now on an unconfirmed assumed pod may expire. */
  finishBinding(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (state === undefined || !this.assumedPods.has(key)) return;
    state.bindingFinished = true;
    state.deadline = this.ttlMs > 0 ? this.now() + this.ttlMs : undefined;
  }

  /** Drops an assumed pod (its binding failed). */
  forgetPod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (state !== undefined && state.pod.spec?.nodeName !== pod.spec?.nodeName) {
      throw new CacheError(
        `pod ${podNamespacedName(pod)} was assumed on ${pod.spec?.nodeName} but assigned to ${state.pod.spec?.nodeName}`,
      );
    }
    if (state === undefined || !this.assumedPods.has(key)) {
      throw new CacheError(`pod ${podNamespacedName(pod)} wasn't assumed so cannot be forgotten`);
    }
    this.removePodInternal(state.pod);
  }

  /** A bound pod reported by the informer: confirms an assumed pod or adds an unknown one. */
  addPod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.podStates.get(key);
    if (state !== undefined && this.assumedPods.has(key)) {
      this.removePodInternal(state.pod);
      this.addPodInternal(pod, false);
      return;
    }
    if (state === undefined) {
      this.addPodInternal(pod, false);
      return;
    }
    throw new CacheError(`pod ${podNamespacedName(pod)} was already in added state`);
  }

  updatePod(oldPod: Pod, newPod: Pod): void {
    const key = podKey(oldPod);
    const state = this.podStates.get(key);
    if (state === undefined)
      throw new CacheError(
        `pod ${podNamespacedName(oldPod)} is not added to scheduler cache, so cannot be updated`,
      );
    if (this.assumedPods.has(key)) {
      throw new CacheError(`assumed pod ${podNamespacedName(oldPod)} should not be updated`);
    }
    this.removePodInternal(state.pod);
    this.addPodInternal(newPod, false);
  }

  removePod(pod: Pod): void {
    const state = this.podStates.get(podKey(pod));
    if (state === undefined)
      throw new CacheError(
        `pod ${podNamespacedName(pod)} is not found in scheduler cache, so cannot be removed from it`,
      );
    this.removePodInternal(state.pod);
  }

  /** Expires assumed pods whose binding finished more than the TTL ago; returns them. */
  cleanupAssumedPods(now = this.now()): Pod[] {
    const expired: Pod[] = [];
    for (const key of this.assumedPods) {
      const state = this.podStates.get(key);
      if (state === undefined || !state.bindingFinished || state.deadline === undefined) continue;
      if (now > state.deadline) expired.push(state.pod);
    }
    for (const pod of expired) this.removePodInternal(pod);
    return expired;
  }

  addNode(node: Node): NodeInfo {
    const name = node.metadata?.name ?? '';
    let info = this.nodes.get(name);
    if (info === undefined) {
      info = new NodeInfo();
      this.nodes.set(name, info);
    } else if (info.node !== null) {
      this.removeNodeImages(info.node);
    }
    this.tree.update(info.node ?? undefined, node);
    info.setNode(node);
    info.imageStates = this.addNodeImages(node);
    this.markDirty(name, true);
    return info;
  }

  updateNode(newNode: Node): NodeInfo {
    const name = newNode.metadata?.name ?? '';
    const info = this.nodes.get(name);
    if (info === undefined || info.node === null) return this.addNode(newNode);
    this.removeNodeImages(info.node);
    // The tree files the node under the zone of the node it last saw.
    this.tree.update(info.node, newNode);
    info.setNode(newNode);
    info.imageStates = this.addNodeImages(newNode);
    this.markDirty(name, true);
    return info;
  }

  /** Removes the node; its pods stay counted until their own deletions arrive. */
  removeNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const info = this.nodes.get(name);
    if (info === undefined || info.node === null) throw new CacheError(`node ${name} is not found`);
    this.tree.remove(info.node);
    this.removeNodeImages(info.node);
    if (info.pods.length === 0) this.nodes.delete(name);
    else info.removeNode();
    this.markDirty(name, true);
  }

  /** Brings `snapshot` up to date with the nodes changed since its last update. */
  updateSnapshot(snapshot: Snapshot): void {
    let rebuildAffinity = false;
    for (const name of this.dirty) {
      const info = this.nodes.get(name);
      const previous = snapshot.nodeInfoMap.get(name);
      if (previous !== undefined && hasAffinityPods(previous)) rebuildAffinity = true;
      if (info === undefined || info.node === null) {
        if (previous !== undefined) {
          snapshot.nodeInfoMap.delete(name);
          snapshot.aggregates.recordNodeChange(previous, undefined);
          this.structureChanged = true;
        }
        continue;
      }
      const copy = info.clone();
      snapshot.aggregates.recordNodeChange(previous, copy);
      if (hasAffinityPods(copy)) rebuildAffinity = true;
      snapshot.nodeInfoMap.set(name, copy);
      if (previous === undefined) {
        this.structureChanged = true;
      } else if (!this.structureChanged) {
        replaceIn(snapshot.nodeInfoList, previous, copy);
      }
    }
    this.dirty.clear();
    if (this.structureChanged) {
      snapshot.rebuildLists(this.tree.list());
      this.structureChanged = false;
    } else if (rebuildAffinity) {
      snapshot.rebuildAffinityLists();
    }
    snapshot.generation += 1;
  }

  private markDirty(name: string, structural = false): void {
    this.dirty.add(name);
    if (structural) this.structureChanged = true;
  }

  private addPodInternal(pod: Pod, assumed: boolean, podInfo?: PodInfo): void {
    const key = podKey(pod);
    const nodeName = pod.spec?.nodeName ?? '';
    let info = this.nodes.get(nodeName);
    if (info === undefined) {
      // A pod may arrive before its node; keep a node info without a node for it.
      info = new NodeInfo();
      info.name = nodeName;
      this.nodes.set(nodeName, info);
    }
    const podInfoToAdd = podInfo !== undefined && podInfo.pod === pod ? podInfo : new PodInfo(pod);
    info.addPodInfo(podInfoToAdd);
    this.podStates.set(key, { pod, podInfo: podInfoToAdd, bindingFinished: false, deadline: undefined });
    if (assumed) this.assumedPods.add(key);
    this.markDirty(nodeName);
  }

  private removePodInternal(pod: Pod): void {
    const key = podKey(pod);
    const nodeName = pod.spec?.nodeName ?? '';
    const info = this.nodes.get(nodeName);
    if (info !== undefined) {
      info.removePod(key);
      if (info.pods.length === 0 && info.node === null) this.nodes.delete(nodeName);
      this.markDirty(nodeName);
    }
    this.podStates.delete(key);
    this.assumedPods.delete(key);
  }

  private addNodeImages(node: Node): Map<string, ImageStateSummary> {
    const summaries = new Map<string, ImageStateSummary>();
    const nodeName = node.metadata?.name ?? '';
    for (const image of node.status?.images ?? []) {
      for (const name of image.names ?? []) {
        let state = this.images.get(name);
        if (state === undefined) {
          state = { summary: { size: image.sizeBytes ?? 0, numNodes: 0 }, nodes: new Set() };
          this.images.set(name, state);
        }
        state.nodes.add(nodeName);
        state.summary.numNodes = state.nodes.size;
        summaries.set(name, state.summary);
      }
    }
    return summaries;
  }

  private removeNodeImages(node: Node): void {
    const nodeName = node.metadata?.name ?? '';
    for (const image of node.status?.images ?? []) {
      for (const name of image.names ?? []) {
        const state = this.images.get(name);
        if (state === undefined) continue;
        state.nodes.delete(nodeName);
        state.summary.numNodes = state.nodes.size;
        if (state.nodes.size === 0) this.images.delete(name);
      }
    }
  }
}

function hasAffinityPods(info: NodeInfo): boolean {
  return info.podsWithAffinity.length > 0 || info.podsWithRequiredAntiAffinity.length > 0;
}

function replaceIn(list: NodeInfo[], previous: NodeInfo, next: NodeInfo): void {
  const index = list.indexOf(previous);
  if (index >= 0) list[index] = next;
}
