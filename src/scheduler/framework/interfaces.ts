// The plugin extension points of the scheduling framework. A plugin is an object with a name and
// any of these methods; the framework finds which extension points it serves by the methods it
// has. Hot-path methods take the PodInfo (requests and affinity terms already parsed) and return
// `null` for Success so a passing plugin allocates nothing.
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from './cycle-state.js';
import type { ClusterEvent } from './events.js';
import type { NodeToStatus } from './node-to-status.js';
import type { QueuedPodInfo } from './queued-pod-info.js';
import type { Status } from './status.js';

export interface Plugin {
  readonly name: string;
}

/** Decides whether a pod may enter the active queue at all (scheduling gates, running preemption). */
export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): Status | null;
}

export interface QueueSortPlugin extends Plugin {
  /** True when `a` should be scheduled before `b`. */
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

export interface PreFilterResult {
  /** A rejection (or Skip: this plugin's Filter need not run). */
  readonly status?: Status | null;
  /** Only these nodes can fit (NodeAffinity on metadata.name); absent: all nodes. */
  readonly nodeNames?: ReadonlySet<string>;
}

/** Lets preemption and nominated pods adjust PreFilter state when a pod is added to or removed from a node. */
export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: PodInfo, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status | null;
  removePod(
    state: CycleState,
    podToSchedule: PodInfo,
    podInfoToRemove: PodInfo,
    nodeInfo: NodeInfo,
  ): Status | null;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): PreFilterResult | null;
  readonly preFilterExtensions?: PreFilterExtensions;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null;
}

export type NominatingMode = 'Noop' | 'Override';

export interface NominatingInfo {
  readonly nominatedNodeName: string;
  readonly mode: NominatingMode;
}

export interface PostFilterResult {
  readonly nominatingInfo: NominatingInfo | null;
}

export interface PostFilterPlugin extends Plugin {
  postFilter(
    state: CycleState,
    podInfo: PodInfo,
    nodeToStatus: NodeToStatus,
  ): { result: PostFilterResult | null; status: Status };
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): Status | null;
}

export interface ScorePlugin extends Plugin {
  /** The node's raw score; throw for an internal error. */
  score(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): number;
  /** Rescales the raw scores (index-aligned with `nodes`) to 0..100 in place. */
  normalizeScore?(
    state: CycleState,
    podInfo: PodInfo,
    scores: Float64Array,
    nodes: readonly NodeInfo[],
  ): Status | null;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, podInfo: PodInfo, nodeName: string): Status | null;
  unreserve(state: CycleState, podInfo: PodInfo, nodeName: string): void;
}

export interface PermitPlugin extends Plugin {
  /** Success, a rejection, or Wait with how long the binding may wait (ms). */
  permit(
    state: CycleState,
    podInfo: PodInfo,
    nodeName: string,
  ): { status: Status | null; timeoutMs?: number };
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, podInfo: PodInfo, nodeName: string): Promise<Status | null>;
}

export interface BindPlugin extends Plugin {
  /** Binds the pod, or returns Skip to leave it to the next bind plugin. */
  bind(state: CycleState, podInfo: PodInfo, nodeName: string): Promise<Status | null>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, podInfo: PodInfo, nodeName: string): void;
}

export type QueueingHint = 'Queue' | 'QueueSkip';

/** Tells, for an event, whether it may make a pod this plugin rejected schedulable. */
export type QueueingHintFn = (pod: Pod, oldObj: unknown, newObj: unknown) => QueueingHint;

export interface ClusterEventWithHint {
  readonly event: ClusterEvent;
  /** Absent: every matching event requeues. */
  readonly hint?: QueueingHintFn;
}

export interface EnqueueExtensions {
  eventsToRegister(): ClusterEventWithHint[];
}

export function isPreEnqueuePlugin(plugin: Plugin): plugin is PreEnqueuePlugin {
  return typeof (plugin as Partial<PreEnqueuePlugin>).preEnqueue === 'function';
}
export function isQueueSortPlugin(plugin: Plugin): plugin is QueueSortPlugin {
  return typeof (plugin as Partial<QueueSortPlugin>).less === 'function';
}
export function isPreFilterPlugin(plugin: Plugin): plugin is PreFilterPlugin {
  return typeof (plugin as Partial<PreFilterPlugin>).preFilter === 'function';
}
export function isFilterPlugin(plugin: Plugin): plugin is FilterPlugin {
  return typeof (plugin as Partial<FilterPlugin>).filter === 'function';
}
export function isPostFilterPlugin(plugin: Plugin): plugin is PostFilterPlugin {
  return typeof (plugin as Partial<PostFilterPlugin>).postFilter === 'function';
}
export function isPreScorePlugin(plugin: Plugin): plugin is PreScorePlugin {
  return typeof (plugin as Partial<PreScorePlugin>).preScore === 'function';
}
export function isScorePlugin(plugin: Plugin): plugin is ScorePlugin {
  return typeof (plugin as Partial<ScorePlugin>).score === 'function';
}
export function isReservePlugin(plugin: Plugin): plugin is ReservePlugin {
  return typeof (plugin as Partial<ReservePlugin>).reserve === 'function';
}
export function isPermitPlugin(plugin: Plugin): plugin is PermitPlugin {
  return typeof (plugin as Partial<PermitPlugin>).permit === 'function';
}
export function isPreBindPlugin(plugin: Plugin): plugin is PreBindPlugin {
  return typeof (plugin as Partial<PreBindPlugin>).preBind === 'function';
}
export function isBindPlugin(plugin: Plugin): plugin is BindPlugin {
  return typeof (plugin as Partial<BindPlugin>).bind === 'function';
}
export function isPostBindPlugin(plugin: Plugin): plugin is PostBindPlugin {
  return typeof (plugin as Partial<PostBindPlugin>).postBind === 'function';
}
export function isEnqueueExtensions(plugin: Plugin): plugin is Plugin & EnqueueExtensions {
  return typeof (plugin as Partial<EnqueueExtensions>).eventsToRegister === 'function';
}
