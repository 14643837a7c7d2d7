// One scheduling profile's plugins, run extension point by extension point (frameworkImpl).
import type { NodeInfo } from '../cache/node-info.js';
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from './cycle-state.js';
import type { FrameworkHandle } from './handle.js';
import {
  type BindPlugin,
  type ClusterEventWithHint,
  type FilterPlugin,
  isBindPlugin,
  isEnqueueExtensions,
  isFilterPlugin,
  isPermitPlugin,
  isPostBindPlugin,
  isPostFilterPlugin,
  isPreBindPlugin,
  isPreEnqueuePlugin,
  isPreFilterPlugin,
  isPreScorePlugin,
  isQueueSortPlugin,
  isReservePlugin,
  isScorePlugin,
  type PermitPlugin,
  type Plugin,
  type PostBindPlugin,
  type PostFilterPlugin,
  type PostFilterResult,
  type PreBindPlugin,
  type PreEnqueuePlugin,
  type PreFilterPlugin,
  type PreScorePlugin,
  type QueueSortPlugin,
  type ReservePlugin,
  type ScorePlugin,
} from './interfaces.js';
import type { NodeToStatus } from './node-to-status.js';
import { Code, Status } from './status.js';
import { WaitingPods } from './waiting-pods.js';

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;
/** The longest a Permit plugin may make a pod wait (15 min). */
const MAX_PERMIT_TIMEOUT_MS = 15 * 60 * 1000;

export interface PluginEntry {
  /** Builds the plugin for this profile. */
  readonly create: (handle: FrameworkHandle) => Plugin;
  /** The Score weight (default 1); only used for Score plugins. */
  readonly weight?: number;
}

export interface ProfileConfig {
  readonly schedulerName: string;
  readonly plugins: readonly PluginEntry[];
  /** 0 (default): adaptive — 50% minus 1% per 125 nodes, at least 5%. */
  readonly percentageOfNodesToScore?: number;
}

export interface WeightedScorePlugin {
  readonly plugin: ScorePlugin;
  readonly weight: number;
}

export interface PreFilterRunResult {
  /** Only these nodes need filtering; null: all. */
  readonly nodeNames: ReadonlySet<string> | null;
  readonly status: Status | null;
  /** Plugins that narrowed the nodes (named in the "didn't satisfy plugin(s)" reason). */
  readonly pluginsWithNodes: readonly string[];
}

function asStatus(error: unknown, plugin: string, what: string): Status {
  const message = error instanceof Error ? error.message : String(error);
  return new Status(Code.Error, [`running ${JSON.stringify(plugin)} ${what} plugin: ${message}`]).withPlugin(
    plugin,
  );
}

export class Framework {
  readonly profileName: string;
  readonly percentageOfNodesToScore: number;
  readonly plugins: readonly Plugin[];
  readonly queueSort: QueueSortPlugin | undefined;
  readonly preEnqueuePlugins: readonly PreEnqueuePlugin[];
  readonly preFilterPlugins: readonly PreFilterPlugin[];
  readonly filterPlugins: readonly FilterPlugin[];
  readonly postFilterPlugins: readonly PostFilterPlugin[];
  readonly preScorePlugins: readonly PreScorePlugin[];
  readonly scorePlugins: readonly WeightedScorePlugin[];
  readonly reservePlugins: readonly ReservePlugin[];
  readonly permitPlugins: readonly PermitPlugin[];
  readonly preBindPlugins: readonly PreBindPlugin[];
  readonly bindPlugins: readonly BindPlugin[];
  readonly postBindPlugins: readonly PostBindPlugin[];
  /** Cluster events each plugin wants to hear about, by plugin name. */
  readonly eventRegistrations: ReadonlyMap<string, readonly ClusterEventWithHint[]>;
  readonly waitingPods = new WaitingPods();

  constructor(
    config: ProfileConfig,
    readonly handle: FrameworkHandle,
  ) {
    this.profileName = config.schedulerName;
    this.percentageOfNodesToScore = config.percentageOfNodesToScore ?? 0;
    const plugins: Plugin[] = [];
    const scorePlugins: WeightedScorePlugin[] = [];
    for (const entry of config.plugins) {
      const plugin = entry.create(handle);
      plugins.push(plugin);
      if (isScorePlugin(plugin)) scorePlugins.push({ plugin, weight: entry.weight ?? 1 });
    }
    this.plugins = plugins;
    this.queueSort = plugins.find(isQueueSortPlugin);
    this.preEnqueuePlugins = plugins.filter(isPreEnqueuePlugin);
    this.preFilterPlugins = plugins.filter(isPreFilterPlugin);
    this.filterPlugins = plugins.filter(isFilterPlugin);
    this.postFilterPlugins = plugins.filter(isPostFilterPlugin);
    this.preScorePlugins = plugins.filter(isPreScorePlugin);
    this.scorePlugins = scorePlugins;
    this.reservePlugins = plugins.filter(isReservePlugin);
    this.permitPlugins = plugins.filter(isPermitPlugin);
    this.preBindPlugins = plugins.filter(isPreBindPlugin);
    this.bindPlugins = plugins.filter(isBindPlugin);
    this.postBindPlugins = plugins.filter(isPostBindPlugin);
    const registrations = new Map<string, readonly ClusterEventWithHint[]>();
    for (const plugin of plugins) {
      if (isEnqueueExtensions(plugin)) registrations.set(plugin.name, plugin.eventsToRegister());
    }
    this.eventRegistrations = registrations;
  }

  hasFilterPlugins(): boolean {
    return this.filterPlugins.length > 0;
  }

  hasScorePlugins(): boolean {
    return this.scorePlugins.length > 0;
  }

  hasPostFilterPlugins(): boolean {
    return this.postFilterPlugins.length > 0;
  }

  /**
   * Runs PreFilter plugins. An Unschedulable rejection lets the others run (preemption needs
   * their state); UnschedulableAndUnresolvable stops at once; node sets are intersected.
   */
  runPreFilterPlugins(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): PreFilterRunResult {
    let nodeNames: Set<string> | null = null;
    const pluginsWithNodes: string[] = [];
    let rejection: Status | null = null;
    for (const plugin of this.preFilterPlugins) {
      let result: ReturnType<PreFilterPlugin['preFilter']>;
      try {
        result = plugin.preFilter(state, podInfo, nodes);
      } catch (error) {
        return { nodeNames: null, status: asStatus(error, plugin.name, 'PreFilter'), pluginsWithNodes: [] };
      }
      const status = result?.status ?? null;
      if (status !== null && status.code === Code.Skip) {
        state.skipFilterPlugins.add(plugin.name);
        continue;
      }
      if (status !== null && status.code !== Code.Success) {
        status.withPlugin(plugin.name);
        if (status.code === Code.UnschedulableAndUnresolvable)
          return { nodeNames: null, status, pluginsWithNodes: [] };
        if (status.code === Code.Unschedulable) {
          rejection = status;
          continue;
        }
        return {
          nodeNames: null,
          status: new Status(Code.Error, [
            `running PreFilter plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
          ]).withPlugin(plugin.name),
          pluginsWithNodes: [],
        };
      }
      const names = result?.nodeNames;
      if (names === undefined) continue;
      pluginsWithNodes.push(plugin.name);
      nodeNames = nodeNames === null ? new Set(names) : intersect(nodeNames, names);
      if (nodeNames.size === 0) {
        const message =
          pluginsWithNodes.length === 1
            ? `node(s) didn't satisfy plugin ${pluginsWithNodes[0]}`
            : `node(s) didn't satisfy plugin(s) [${pluginsWithNodes.join(' ')}] simultaneously`;
        return { nodeNames, status: Status.unresolvable(message), pluginsWithNodes };
      }
    }
    return { nodeNames, status: rejection, pluginsWithNodes };
  }

  runPreFilterExtensionAddPod(
    state: CycleState,
    podToSchedule: PodInfo,
    podInfoToAdd: PodInfo,
    nodeInfo: NodeInfo,
  ): Status | null {
    for (const plugin of this.preFilterPlugins) {
      const extensions = plugin.preFilterExtensions;
      if (extensions === undefined || state.skipFilterPlugins.has(plugin.name)) continue;
      const status = extensions.addPod(state, podToSchedule, podInfoToAdd, nodeInfo);
      if (status !== null && status.code !== Code.Success) {
        return new Status(Code.Error, [
          `running AddPod on PreFilter plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
        ]);
      }
    }
    return null;
  }

  runPreFilterExtensionRemovePod(
    state: CycleState,
    podToSchedule: PodInfo,
    podInfoToRemove: PodInfo,
    nodeInfo: NodeInfo,
  ): Status | null {
    for (const plugin of this.preFilterPlugins) {
      const extensions = plugin.preFilterExtensions;
      if (extensions === undefined || state.skipFilterPlugins.has(plugin.name)) continue;
      const status = extensions.removePod(state, podToSchedule, podInfoToRemove, nodeInfo);
      if (status !== null && status.code !== Code.Success) {
        return new Status(Code.Error, [
          `running RemovePod on PreFilter plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
        ]);
      }
    }
    return null;
  }

  /**
   * The filters this cycle runs (those whose PreFilter did not Skip), worked out once per state
   * and kept on it: this is read for every node a pod is filtered against.
   */
  private activeFilters(state: CycleState): readonly FilterPlugin[] {
    let filters = state.activeFilters as readonly FilterPlugin[] | undefined;
    if (filters === undefined) {
      filters =
        state.skipFilterPlugins.size === 0
          ? this.filterPlugins
          : this.filterPlugins.filter((plugin) => !state.skipFilterPlugins.has(plugin.name));
      state.activeFilters = filters;
    }
    return filters;
  }

  /** Runs filters until the first that rejects the node; null when all pass. */
  runFilterPlugins(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const filters = this.activeFilters(state);
    for (let index = 0; index < filters.length; index++) {
      const plugin = filters[index]!;
      let status: Status | null;
      try {
        status = plugin.filter(state, podInfo, nodeInfo);
      } catch (error) {
        return asStatus(error, plugin.name, 'Filter');
      }
      if (status === null || status.code === Code.Success) continue;
      if (!status.isRejected()) {
        return new Status(Code.Error, [
          `running ${JSON.stringify(plugin.name)} filter plugin: ${status.message()}`,
        ]).withPlugin(plugin.name);
      }
      status.plugin = plugin.name;
      return status;
    }
    return null;
  }

  /**
   * Filters with the pods nominated to the node that are at least as important as this one counted
   * as if already running there; a pass must then also hold without them (they may not come).
   */
  runFilterPluginsWithNominatedPods(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const nominator = this.handle.nominator;
    if (!nominator.hasNominatedPods()) return this.runFilterPlugins(state, podInfo, nodeInfo);
    const nominated = nominator.nominatedPodsForNode(nodeInfo.name);
    if (nominated.length === 0) return this.runFilterPlugins(state, podInfo, nodeInfo);
    let stateWith: CycleState | undefined;
    let nodeWith: NodeInfo | undefined;
    for (const other of nominated) {
      if (other.priority < podInfo.priority || other.key === podInfo.key) continue;
      stateWith ??= state.clone();
      nodeWith ??= nodeInfo.clone();
      nodeWith.addPodInfo(other);
      const status = this.runPreFilterExtensionAddPod(stateWith, podInfo, other, nodeWith);
      if (status !== null) return status;
    }
    if (stateWith === undefined || nodeWith === undefined)
      return this.runFilterPlugins(state, podInfo, nodeInfo);
    const status = this.runFilterPlugins(stateWith, podInfo, nodeWith);
    if (status !== null) return status;
    return this.runFilterPlugins(state, podInfo, nodeInfo);
  }

  runPostFilterPlugins(
    state: CycleState,
    podInfo: PodInfo,
    nodeToStatus: NodeToStatus,
  ): { result: PostFilterResult | null; status: Status } {
    let result: PostFilterResult | null = null;
    const reasons: string[] = [];
    let rejector = '';
    for (const plugin of this.postFilterPlugins) {
      let outcome: ReturnType<PostFilterPlugin['postFilter']>;
      try {
        outcome = plugin.postFilter(state, podInfo, nodeToStatus);
      } catch (error) {
        return { result: null, status: asStatus(error, plugin.name, 'PostFilter') };
      }
      const { status } = outcome;
      if (status.code === Code.Success) return outcome;
      if (status.code === Code.UnschedulableAndUnresolvable)
        return { result: outcome.result, status: status.withPlugin(plugin.name) };
      if (!status.isRejected())
        return { result: null, status: new Status(Code.Error, status.reasons).withPlugin(plugin.name) };
      if (outcome.result?.nominatingInfo && outcome.result.nominatingInfo.mode !== 'Noop')
        result = outcome.result;
      reasons.push(...status.reasons);
      if (rejector === '') rejector = plugin.name;
    }
    return { result, status: new Status(Code.Unschedulable, reasons).withPlugin(rejector) };
  }

  runPreScorePlugins(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): Status | null {
    for (const plugin of this.preScorePlugins) {
      let status: Status | null;
      try {
        status = plugin.preScore(state, podInfo, nodes);
      } catch (error) {
        return asStatus(error, plugin.name, 'PreScore');
      }
      if (status === null || status.code === Code.Success) continue;
      if (status.code === Code.Skip) {
        state.skipScorePlugins.add(plugin.name);
        continue;
      }
      return new Status(Code.Error, [
        `running PreScore plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
      ]).withPlugin(plugin.name);
    }
    return null;
  }

  /**
   * Scores every node with every Score plugin not skipped, normalises, applies weights and sums.
   * `perPlugin`, when given, receives each plugin's weighted scores (for explanations and tests).
   */
  runScorePlugins(
    state: CycleState,
    podInfo: PodInfo,
    nodes: readonly NodeInfo[],
    perPlugin?: Map<string, Float64Array>,
  ): { totals: Float64Array; status: Status | null } {
    const totals = new Float64Array(nodes.length);
    const scores = new Float64Array(nodes.length);
    for (const { plugin, weight } of this.scorePlugins) {
      if (state.skipScorePlugins.has(plugin.name)) continue;
      try {
        for (let index = 0; index < nodes.length; index++)
          scores[index] = plugin.score(state, podInfo, nodes[index]!);
        if (plugin.normalizeScore !== undefined) {
          const status = plugin.normalizeScore(state, podInfo, scores, nodes);
          if (status !== null && status.code !== Code.Success) {
            return {
              totals,
              status: new Status(Code.Error, [`running Normalize on Score plugins: ${status.message()}`]),
            };
          }
        }
      } catch (error) {
        return { totals, status: asStatus(error, plugin.name, 'Score') };
      }
      for (let index = 0; index < nodes.length; index++) {
        const score = scores[index]!;
        if (score > MAX_NODE_SCORE || score < MIN_NODE_SCORE) {
          const message = `applying score defaultWeights on Score plugins: plugin ${JSON.stringify(plugin.name)} returns an invalid score ${score}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`;
          return { totals, status: new Status(Code.Error, [message]) };
        }
        totals[index]! += score * weight;
      }
      if (perPlugin !== undefined)
        perPlugin.set(
          plugin.name,
          scores.map((score) => score * weight),
        );
    }
    return { totals, status: null };
  }

  runReservePluginsReserve(state: CycleState, podInfo: PodInfo, nodeName: string): Status | null {
    for (const plugin of this.reservePlugins) {
      let status: Status | null;
      try {
        status = plugin.reserve(state, podInfo, nodeName);
      } catch (error) {
        return asStatus(error, plugin.name, 'Reserve');
      }
      if (status === null || status.code === Code.Success) continue;
      if (status.isRejected()) return status.withPlugin(plugin.name);
      return new Status(Code.Error, [
        `running Reserve plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
      ]).withPlugin(plugin.name);
    }
    return null;
  }

  /** Unreserve runs in reverse order and cannot fail. */
  runReservePluginsUnreserve(state: CycleState, podInfo: PodInfo, nodeName: string): void {
    for (let index = this.reservePlugins.length - 1; index >= 0; index--) {
      try {
        this.reservePlugins[index]!.unreserve(state, podInfo, nodeName);
      } catch {
        // Unreserve is best effort, as in Kubernetes.
      }
    }
  }

  /** Success, a rejection, or Wait (the pod is then held in `waitingPods` until allowed or timed out). */
  runPermitPlugins(state: CycleState, podInfo: PodInfo, nodeName: string): Status | null {
    const waits = new Map<string, number>();
    for (const plugin of this.permitPlugins) {
      let outcome: ReturnType<PermitPlugin['permit']>;
      try {
        outcome = plugin.permit(state, podInfo, nodeName);
      } catch (error) {
        return asStatus(error, plugin.name, 'Permit');
      }
      const status = outcome.status;
      if (status === null || status.code === Code.Success) continue;
      if (status.isRejected()) return status.withPlugin(plugin.name);
      if (status.code === Code.Wait) {
        waits.set(plugin.name, Math.min(outcome.timeoutMs ?? MAX_PERMIT_TIMEOUT_MS, MAX_PERMIT_TIMEOUT_MS));
        continue;
      }
      return new Status(Code.Error, [
        `running Permit plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
      ]).withPlugin(plugin.name);
    }
    if (waits.size === 0) return null;
    this.waitingPods.add(podInfo, waits);
    return new Status(Code.Wait, ['one or more plugins asked to wait and no plugin rejected pod']);
  }

  /** Resolves once a waiting pod is allowed (null) or rejected / timed out (a rejection). */
  async waitOnPermit(podInfo: PodInfo): Promise<Status | null> {
    return this.waitingPods.wait(podInfo.key);
  }

  async runPreBindPlugins(state: CycleState, podInfo: PodInfo, nodeName: string): Promise<Status | null> {
    for (const plugin of this.preBindPlugins) {
      let status: Status | null;
      try {
        status = await plugin.preBind(state, podInfo, nodeName);
      } catch (error) {
        return asStatus(error, plugin.name, 'PreBind');
      }
      if (status === null || status.code === Code.Success || status.code === Code.Skip) continue;
      if (status.isRejected()) return status.withPlugin(plugin.name);
      return new Status(Code.Error, [
        `running PreBind plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
      ]).withPlugin(plugin.name);
    }
    return null;
  }

  async runBindPlugins(state: CycleState, podInfo: PodInfo, nodeName: string): Promise<Status | null> {
    if (this.bindPlugins.length === 0) return new Status(Code.Skip);
    let status: Status | null = null;
    for (const plugin of this.bindPlugins) {
      try {
        status = await plugin.bind(state, podInfo, nodeName);
      } catch (error) {
        status = Status.fromError(error);
      }
      if (status !== null && status.code === Code.Skip) continue;
      if (status !== null && status.code !== Code.Success) {
        if (status.isRejected()) return status.withPlugin(plugin.name);
        return new Status(Code.Error, [
          `running Bind plugin ${JSON.stringify(plugin.name)}: ${status.message()}`,
        ]).withPlugin(plugin.name);
      }
      return null;
    }
    return status;
  }

  runPostBindPlugins(state: CycleState, podInfo: PodInfo, nodeName: string): void {
    for (const plugin of this.postBindPlugins) {
      try {
        plugin.postBind(state, podInfo, nodeName);
      } catch {
        // PostBind is informational.
      }
    }
  }
}

function intersect(names: Set<string>, other: ReadonlySet<string>): Set<string> {
  const result = new Set<string>();
  for (const name of names) if (other.has(name)) result.add(name);
  return result;
}
