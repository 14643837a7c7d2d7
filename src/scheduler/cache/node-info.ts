// Everything the scheduler knows about one node (framework.NodeInfo): the node, its pods, their
// summed requests, host ports in use and the images it holds. Kept in the cache and cloned into
// each cycle's snapshot.

import { HostPortInfo } from '../../api/host-ports.js';
import { Resource } from '../../api/scheduling/resource.js';
import type { Node, Taint } from '../../api/types/core-v1.generated.js';
import type { PodInfo } from './pod-info.js';

/** An image on a node, and on how many nodes it is (for ImageLocality's spread factor). */
export interface ImageStateSummary {
  readonly size: number;
  numNodes: number;
}

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});
const NO_TAINTS: readonly Taint[] = Object.freeze([]);

let generationCounter = 0;
/** A process-wide increasing number: a NodeInfo changed after a snapshot taken at a lower one. */
export function nextGeneration(): number {
  generationCounter += 1;
  return generationCounter;
}

export class NodeInfo {
  node: Node | null = null;
  name = '';
  labels: Readonly<Record<string, string>> = NO_LABELS;
  taints: readonly Taint[] = NO_TAINTS;
  pods: PodInfo[] = [];
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  /** Sum of the pods' requests. */
  requested = new Resource();
  /** Sum with 100m / 200Mi assumed for containers without requests (only cpu and memory used). */
  nonZeroRequested = new Resource();
  allocatable = new Resource();
  imageStates: ReadonlyMap<string, ImageStateSummary> = new Map();
  generation = nextGeneration();

  constructor(node?: Node) {
    if (node !== undefined) this.setNode(node);
  }

  setNode(node: Node): void {
    this.node = node;
    this.name = node.metadata?.name ?? '';
    this.labels = node.metadata?.labels ?? NO_LABELS;
    this.taints = node.spec?.taints ?? NO_TAINTS;
    this.allocatable = Resource.fromList(node.status?.allocatable);
    this.generation = nextGeneration();
  }

  /** Forgets the node but keeps its pods (a node deleted before its pods). */
  removeNode(): void {
    this.node = null;
    this.generation = nextGeneration();
  }

  addPodInfo(podInfo: PodInfo): void {
    this.pods.push(podInfo);
    if (podInfo.hasAffinity()) this.podsWithAffinity.push(podInfo);
    if (podInfo.hasRequiredAntiAffinity()) this.podsWithRequiredAntiAffinity.push(podInfo);
    this.update(podInfo, 1);
  }

  /** Removes the pod with this key; false when the node does not hold it. */
  removePod(key: string): boolean {
    const index = this.pods.findIndex((candidate) => candidate.key === key);
    if (index < 0) return false;
    const podInfo = this.pods[index]!;
    swapRemove(this.pods, index);
    removeByKey(this.podsWithAffinity, key);
    removeByKey(this.podsWithRequiredAntiAffinity, key);
    this.update(podInfo, -1);
    return true;
  }

  private update(podInfo: PodInfo, sign: 1 | -1): void {
    const requests = podInfo.requests;
    const nonZero = podInfo.nonZeroRequests;
    if (sign === 1) this.requested.add(requests);
    else this.requested.subtract(requests);
    this.nonZeroRequested.milliCPU += sign * nonZero.milliCPU;
    this.nonZeroRequested.memory += sign * nonZero.memory;
    for (const port of podInfo.hostPorts) {
      if (sign === 1) this.usedPorts.add(port.hostIP, port.protocol, port.hostPort ?? 0);
      else this.usedPorts.remove(port.hostIP, port.protocol, port.hostPort ?? 0);
    }
    this.generation = nextGeneration();
  }

  /** A copy whose pod lists and sums can change without touching this one. */
  clone(): NodeInfo {
    const copy = new NodeInfo();
    copy.node = this.node;
    copy.name = this.name;
    copy.labels = this.labels;
    copy.taints = this.taints;
    copy.pods = this.pods.slice();
    copy.podsWithAffinity = this.podsWithAffinity.slice();
    copy.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.slice();
    copy.usedPorts = this.usedPorts.size === 0 ? new HostPortInfo() : this.usedPorts.clone();
    copy.requested = this.requested.clone();
    copy.nonZeroRequested = this.nonZeroRequested.clone();
    copy.allocatable = this.allocatable;
    copy.imageStates = this.imageStates;
    copy.generation = this.generation;
    return copy;
  }
}

function swapRemove<T>(items: T[], index: number): void {
  const last = items.length - 1;
  if (index !== last) items[index] = items[last]!;
  items.pop();
}

function removeByKey(items: PodInfo[], key: string): void {
  const index = items.findIndex((candidate) => candidate.key === key);
  if (index >= 0) swapRemove(items, index);
}
