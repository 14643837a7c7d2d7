// The node lifecycle controller (pkg/controller/nodelifecycle). Every `--node-monitor-period` it
// checks each node's heartbeats — its Lease in kube-node-lease and its Ready condition — and once
// neither has moved for `--node-monitor-grace-period` (`--node-startup-grace-period` for a node
// that never reported), sets the kubelet's conditions to Unknown ("Kubelet stopped posting node
// status."), marks the node's pods not Ready, and queues the node for the NoExecute taint matching
// its Ready condition (unreachable or not-ready), rate-limited per zone and suspended when every
// zone is down. A Ready node loses those taints. On every node change it also keeps the NoSchedule
// taints in line with the node's conditions and spec.unschedulable.
import type { Lease } from '../../api/types/coordination-v1.generated.js';
import type { Node, NodeCondition, NodeStatus, Pod, Taint } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import { rfc3339 } from '../../client/events/time.js';
import { type SharedInformer, sleep, waitForCacheSync } from '../../client/informers/index.js';
import { LEASES, NODES, PODS } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import type {
  ClusterSettings,
  ControllerContext,
  ControllerDescriptor,
  RunnableController,
} from '../context.js';
import { markPodsNotReady, recordNodeEvent, recordNodeStatusChange } from './node-events.js';
import {
  CONDITION_TAINT_KEYS,
  CONDITION_TAINTS,
  NOT_READY_NO_EXECUTE,
  removeNodeTaints,
  swapNodeTaints,
  TAINT_UNSCHEDULABLE,
  taintExists,
  taintSetDiff,
  UNREACHABLE_NO_EXECUTE,
} from './node-taints.js';
import { PODS_BY_NODE_INDEXERS, podsOnNode } from './pods-by-node.js';
import { RateLimitedTimedQueue } from './rate-limited-timed-queue.js';
import { computeZoneState, EXCLUDE_DISRUPTION_LABEL, type ZoneState, zoneKeyOf } from './zones.js';

const SERVICE_ACCOUNT = 'node-controller';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** How often queued nodes get their NoExecute taint (scheduler.NodeEvictionPeriod). */
const NO_EXECUTE_TAINTING_PERIOD_MS = 100;
/** Tries of one node's health update, re-reading the node between them (NodeHealthUpdateRetry). */
const HEALTH_UPDATE_RETRIES = 5;
const NODE_UPDATE_PARALLELISM = 8;
/** The kubelet-owned conditions set to Unknown when it goes silent (NetworkUnavailable is not its). */
const KUBELET_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
/** Beta labels kept equal to their stable forms. */
const LABELS_TO_RECONCILE: readonly (readonly [stable: string, beta: string])[] = [
  ['kubernetes.io/os', 'beta.kubernetes.io/os'],
  ['kubernetes.io/arch', 'beta.kubernetes.io/arch'],
];

/** The controller's own record of a node's health signals, stamped with its own clock. */
interface NodeHealth {
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  status: NodeStatus | undefined;
  lease: Lease | undefined;
}

export class NodeLifecycleController implements RunnableController {
  private readonly nodes: SharedInformer<Node>;
  private readonly pods: SharedInformer<Pod>;
  private readonly leases: SharedInformer<Lease>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  private readonly settings: ClusterSettings;
  /** NoSchedule taints and labels, per node name. */
  private readonly nodeUpdates: Controller;
  /** Pods newly bound to a node that is not Ready, per pod key. */
  private readonly podUpdates: Controller;
  private readonly knownNodes = new Map<string, Node>();
  private readonly health = new Map<string, NodeHealth>();
  /** Nodes whose pods could not all be marked not Ready: retried on the next pass. */
  private readonly nodesToRetry = new Set<string>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly zoneTainters = new Map<string, RateLimitedTimedQueue>();
  private readonly log = (message: string): void => console.error(`node-lifecycle: ${message}`);

  constructor(context: ControllerContext) {
    this.settings = context.settings;
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'node-controller');
    this.nodes = context.informers.informerFor<Node>(NODES);
    this.pods = context.informers.informerFor<Pod>(PODS, { indexers: PODS_BY_NODE_INDEXERS });
    this.leases = context.informers.informerFor<Lease>(LEASES, { namespace: NODE_LEASE_NAMESPACE });
    this.nodeUpdates = new Controller({
      name: 'node-lifecycle',
      sync: (name) => this.syncNodeTaintsAndLabels(name),
      workers: NODE_UPDATE_PARALLELISM,
    });
    this.nodeUpdates.watch(this.nodes);
    this.nodes.addEventHandler({
      onDelete: (deleted) => this.nodesToRetry.delete(objectOf(deleted).metadata?.name ?? ''),
    });
    this.podUpdates = new Controller({
      name: 'node-lifecycle-pods',
      sync: (key) => this.processPod(key),
      workers: 4,
    });
    this.pods.addEventHandler({
      onAdd: (pod) => this.podUpdated(undefined, pod),
      onUpdate: (oldPod, pod) => this.podUpdated(oldPod, pod),
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!(await waitForCacheSync(signal, [this.nodes, this.pods, this.leases]))) return;
    await Promise.all([
      this.nodeUpdates.run(signal),
      this.podUpdates.run(signal),
      this.every(NO_EXECUTE_TAINTING_PERIOD_MS, signal, () => this.doNoExecuteTaintingPass()),
      this.every(this.settings.nodeMonitorPeriodMs, signal, () => this.monitorNodeHealth()),
    ]);
  }

  /** Runs `pass` until the signal aborts, pausing `periodMs` after each run (wait.Until). */
  private async every(periodMs: number, signal: AbortSignal, pass: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      try {
        await pass();
      } catch (error) {
        this.log(String(error));
      }
      await sleep(periodMs, signal);
    }
  }

  // --- NoSchedule taints from conditions, and labels ---

  private async syncNodeTaintsAndLabels(name: string): Promise<void> {
    const node = this.nodes.lister.get('', name);
    if (!node) return;
    const wanted: Taint[] = [];
    for (const condition of node.status?.conditions ?? []) {
      const key = CONDITION_TAINTS[condition.type]?.[condition.status];
      if (key) wanted.push({ key, effect: 'NoSchedule' });
    }
    if (node.spec?.unschedulable) wanted.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
    const owned = (node.spec?.taints ?? []).filter(
      (taint) =>
        taint.effect === 'NoSchedule' &&
        (taint.key === TAINT_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(taint.key)),
    );
    const { add, remove } = taintSetDiff(wanted, owned);
    if (
      (add.length > 0 || remove.length > 0) &&
      !(await swapNodeTaints(this.client, node, add, remove, this.log))
    ) {
      throw new Error(`failed to swap taints of node ${name}`);
    }
    await this.reconcileNodeLabels(name);
  }

  private async reconcileNodeLabels(name: string): Promise<void> {
    const labels = this.nodes.lister.get('', name)?.metadata?.labels;
    if (!labels) return;
    const update: Record<string, string> = {};
    for (const [stable, beta] of LABELS_TO_RECONCILE) {
      const value = labels[stable];
      if (value !== undefined && labels[beta] !== value) update[beta] = value;
    }
    if (Object.keys(update).length === 0) return;
    await this.client.resource<Node>(NODES).patch('', name, 'strategic', { metadata: { labels: update } });
  }

  // --- pods bound to nodes that are not Ready ---

  private podUpdated(oldPod: Pod | undefined, pod: Pod): void {
    const nodeName = pod.spec?.nodeName;
    if (nodeName && nodeName !== oldPod?.spec?.nodeName) this.podUpdates.enqueue(pod);
  }

  private async processPod(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const pod = this.pods.lister.get(namespace, name);
    if (!pod) return;
    const nodeName = pod.spec?.nodeName ?? '';
    const health = this.health.get(nodeName);
    // Not seen yet (or gone): the next health pass takes care of it.
    if (!health) return;
    if (!this.nodes.lister.get('', nodeName))
      throw new Error(`node ${nodeName} of pod ${key} is not in the cache`);
    const ready = readyCondition(health.status);
    if (ready && ready.status !== 'True') await markPodsNotReady(this.client, this.recorder, [pod], nodeName);
  }

  // --- health monitoring ---

  private async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodes.lister.list();
    const present = new Set(nodes.map((node) => node.metadata?.name ?? ''));
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      if (this.knownNodes.has(name)) {
        this.addTainterForZone(node);
        continue;
      }
      recordNodeEvent(
        this.recorder,
        node,
        'Normal',
        'RegisteredNode',
        `Registered Node ${name} in Controller`,
      );
      this.knownNodes.set(name, node);
      this.addTainterForZone(node);
      await this.markNodeAsReachable(node).catch((error: unknown) => this.log(String(error)));
    }
    for (const [name, node] of this.knownNodes) {
      if (present.has(name)) continue;
      recordNodeEvent(this.recorder, node, 'Normal', 'RemovingNode', `Removing Node ${name} from Controller`);
      this.knownNodes.delete(name);
    }

    const zoneConditions = new Map<string, (NodeCondition | undefined)[]>();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < nodes.length; i = next++) {
        const node = nodes[i]!;
        const current = await this.updateNode(node);
        if (current === false || node.metadata?.labels?.[EXCLUDE_DISRUPTION_LABEL] !== undefined) continue;
        const zone = zoneKeyOf(node);
        zoneConditions.set(zone, [...(zoneConditions.get(zone) ?? []), current]);
      }
    };
    await Promise.all(Array.from({ length: NODE_UPDATE_PARALLELISM }, worker));
    await this.handleDisruption(zoneConditions, nodes);
  }

  /** One node's pass: its current Ready condition, or false when its health could not be updated. */
  private async updateNode(cached: Node): Promise<NodeCondition | undefined | false> {
    const name = cached.metadata?.name ?? '';
    // A shallow copy: tryUpdateNodeHealth replaces status (and copies the conditions it changes)
    // rather than changing the cached node. Cloning all of every node each pass (5 s) was most
    // of what a thousand idle nodes cost this controller.
    let node: Node = { ...cached };
    let result: { observed: NodeCondition; current: NodeCondition | undefined } | undefined;
    for (let attempt = 1; result === undefined; attempt++) {
      try {
        result = await this.tryUpdateNodeHealth(node);
      } catch (error) {
        if (attempt >= HEALTH_UPDATE_RETRIES) {
          this.log(
            `update health of node ${name} failed, skipping - no pods will be evicted: ${String(error)}`,
          );
          return false;
        }
        try {
          node = await this.client.resource<Node>(NODES).get('', name);
        } catch {
          this.log(`failed while getting node ${name} to retry updating its health; probably deleted`);
          return false;
        }
      }
    }
    const { observed, current } = result;
    if (!current) return current;
    const pods = podsOnNode(this.pods, name);
    await this.processTaintBasedEviction(node, observed);
    const becameNotReady = current.status !== 'True' && observed.status === 'True';
    if (becameNotReady) recordNodeStatusChange(this.recorder, node, 'NodeNotReady');
    if (becameNotReady || (this.nodesToRetry.has(name) && observed.status !== 'True')) {
      try {
        await markPodsNotReady(this.client, this.recorder, pods, name);
      } catch (error) {
        this.log(`unable to mark all pods NotReady on node ${name}: ${String(error)}; queuing for retry`);
        this.nodesToRetry.add(name);
        return current;
      }
    }
    this.nodesToRetry.delete(name);
    return current;
  }

  /**
   * Compares the node's heartbeats with what was last seen; past the grace period, sets the
   * kubelet's conditions to Unknown (writing the node's status). `node` is a shallow copy whose
   * status it may replace.
   */
  private async tryUpdateNodeHealth(
    node: Node,
  ): Promise<{ observed: NodeCondition; current: NodeCondition | undefined }> {
    const name = node.metadata?.name ?? '';
    const created = node.metadata?.creationTimestamp ?? '';
    const now = Date.now();
    let health = this.health.get(name);
    let current = readyCondition(node.status);
    let observed: NodeCondition;
    let gracePeriodMs: number;
    if (!current) {
      // Never reported: judged from the node's creation, with the startup grace period.
      observed = {
        type: 'Ready',
        status: 'Unknown',
        lastHeartbeatTime: created,
        lastTransitionTime: created,
      };
      gracePeriodMs = this.settings.nodeStartupGracePeriodMs;
      const createdMs = Date.parse(created) || now;
      health = health
        ? { ...health, status: node.status }
        : {
            status: node.status,
            probeTimestamp: createdMs,
            readyTransitionTimestamp: createdMs,
            lease: undefined,
          };
    } else {
      observed = { ...current };
      gracePeriodMs = this.settings.nodeMonitorGracePeriodMs;
    }
    const saved = readyCondition(health?.status);
    const savedLease = health?.lease;
    if (!health || (!saved && current) || (saved && !current)) {
      health = { status: node.status, probeTimestamp: now, readyTransitionTimestamp: now, lease: savedLease };
    } else if (saved && current && saved.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transitioned = saved.lastTransitionTime !== current.lastTransitionTime;
      health = {
        status: node.status,
        probeTimestamp: now,
        readyTransitionTimestamp: transitioned ? now : health.readyTransitionTimestamp,
        lease: savedLease,
      };
    }
    // A renewed lease counts as a heartbeat, even from a kubelet that never posts status.
    const lease = this.leases.lister.get(NODE_LEASE_NAMESPACE, name);
    if (lease && (!savedLease || renewTimeOf(savedLease) < renewTimeOf(lease))) {
      health = { ...health, lease, probeTimestamp: now };
    }
    this.health.set(name, health);

    if (now > health.probeTimestamp + gracePeriodMs) {
      const nowText = rfc3339(now);
      node.status = {
        ...node.status,
        conditions: (node.status?.conditions ?? []).map((condition) => ({ ...condition })),
      };
      const conditions = node.status.conditions!;
      for (const type of KUBELET_CONDITIONS) {
        const condition = conditions.find((c) => c.type === type);
        if (!condition) {
          conditions.push({
            type,
            status: 'Unknown',
            reason: 'NodeStatusNeverUpdated',
            message: 'Kubelet never posted node status.',
            lastHeartbeatTime: created,
            lastTransitionTime: nowText,
          });
        } else if (condition.status !== 'Unknown') {
          condition.status = 'Unknown';
          condition.reason = 'NodeStatusUnknown';
          condition.message = 'Kubelet stopped posting node status.';
          condition.lastTransitionTime = nowText;
        }
      }
      current = readyCondition(node.status);
      if (!sameCondition(current, observed)) {
        await this.client.resource<Node>(NODES).updateStatus(node);
        this.health.set(name, {
          status: node.status,
          probeTimestamp: health.probeTimestamp,
          readyTransitionTimestamp: now,
          lease: lease ?? savedLease,
        });
      }
    }
    return { observed, current };
  }

  // --- NoExecute taints ---

  private async processTaintBasedEviction(node: Node, observed: NodeCondition): Promise<void> {
    const taints = node.spec?.taints;
    switch (observed.status) {
      case 'False':
        // Already tainted unreachable: switch at once rather than wait for the queue.
        if (taintExists(taints, UNREACHABLE_NO_EXECUTE)) {
          await swapNodeTaints(this.client, node, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE], this.log);
        } else {
          this.markNodeForTainting(node, 'False');
        }
        break;
      case 'Unknown':
        if (taintExists(taints, NOT_READY_NO_EXECUTE)) {
          await swapNodeTaints(this.client, node, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE], this.log);
        } else {
          this.markNodeForTainting(node, 'Unknown');
        }
        break;
      case 'True':
        await this.markNodeAsReachable(node).catch((error: unknown) =>
          this.log(`failed to remove taints from node ${node.metadata?.name}: ${String(error)}`),
        );
        break;
    }
  }

  private markNodeForTainting(node: Node, status: 'False' | 'Unknown'): boolean {
    const name = node.metadata?.name ?? '';
    const tainter = this.addTainterForZone(node);
    // A node whose taint went away (removed by hand) must be queued again.
    const taint = status === 'False' ? NOT_READY_NO_EXECUTE : UNREACHABLE_NO_EXECUTE;
    if (!taintExists(node.spec?.taints, taint)) tainter.remove(name);
    return tainter.add(name, node.metadata?.uid ?? '');
  }

  private async markNodeAsReachable(node: Node): Promise<boolean> {
    await removeNodeTaints(this.client, node, [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE]);
    return this.addTainterForZone(node).remove(node.metadata?.name ?? '');
  }

  private async doNoExecuteTaintingPass(): Promise<void> {
    for (const tainter of [...this.zoneTainters.values()]) {
      await tainter.try(async (name) => {
        const node = this.nodes.lister.get('', name);
        if (!node) return [true, 0];
        const ready = readyCondition(node.status);
        if (!ready) return [false, 50];
        // Unreachable and not-ready mirror the Ready condition: one excludes the other.
        if (ready.status === 'False') {
          return [
            await swapNodeTaints(
              this.client,
              node,
              [NOT_READY_NO_EXECUTE],
              [UNREACHABLE_NO_EXECUTE],
              this.log,
            ),
            0,
          ];
        }
        if (ready.status === 'Unknown') {
          return [
            await swapNodeTaints(
              this.client,
              node,
              [UNREACHABLE_NO_EXECUTE],
              [NOT_READY_NO_EXECUTE],
              this.log,
            ),
            0,
          ];
        }
        return [true, 0];
      });
    }
  }

  // --- zones ---

  private addTainterForZone(node: Node): RateLimitedTimedQueue {
    const zone = zoneKeyOf(node);
    let tainter = this.zoneTainters.get(zone);
    if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    if (!tainter) {
      tainter = new RateLimitedTimedQueue(this.settings.nodeEvictionRate);
      this.zoneTainters.set(zone, tainter);
    }
    return tainter;
  }

  /**
   * Tainting slows down in a partially disrupted zone and stops while every zone is fully
   * disrupted (then the controller itself is likely the one cut off): it untaints every node and
   * waits for some node to come back.
   */
  private async handleDisruption(
    zoneConditions: ReadonlyMap<string, readonly (NodeCondition | undefined)[]>,
    nodes: readonly Node[],
  ): Promise<void> {
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of zoneConditions) {
      const { state } = computeZoneState(conditions, this.settings.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWereFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneConditions.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWereFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWereFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      this.log('all nodes are not Ready: entering master disruption mode');
      for (const node of nodes) {
        await this.markNodeAsReachable(node).catch((error: unknown) =>
          this.log(`failed to remove taints from node ${node.metadata?.name}: ${String(error)}`),
        );
      }
      for (const zone of this.zoneStates.keys()) {
        this.zoneTainters.get(zone)?.swapLimiter(0);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFullyDisrupted) {
      this.log('some nodes are Ready: exiting master disruption mode');
      const now = Date.now();
      for (const node of nodes) {
        const health = this.health.get(node.metadata?.name ?? '');
        if (health) {
          health.probeTimestamp = now;
          health.readyTransitionTimestamp = now;
        }
      }
      for (const zone of [...this.zoneStates.keys()]) {
        const state = newStates.get(zone);
        this.setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, state);
        if (state) this.zoneStates.set(zone, state);
      }
      return;
    }
    for (const [zone, state] of [...this.zoneStates]) {
      const newState = newStates.get(zone);
      if (state === newState || !newState) continue;
      this.setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, newState);
      this.zoneStates.set(zone, newState);
    }
  }

  private setLimiterInZone(zone: string, zoneSize: number, state: ZoneState | undefined): void {
    const tainter = this.zoneTainters.get(zone);
    if (!tainter) return;
    switch (state) {
      case 'Normal':
      case 'FullDisruption':
        tainter.swapLimiter(this.settings.nodeEvictionRate);
        break;
      case 'PartialDisruption':
        // Small clusters stop tainting altogether while a zone is partially down.
        tainter.swapLimiter(
          zoneSize > this.settings.largeClusterSizeThreshold ? this.settings.secondaryNodeEvictionRate : 0,
        );
        break;
    }
  }
}

function readyCondition(status: NodeStatus | undefined): NodeCondition | undefined {
  return status?.conditions?.find((condition) => condition.type === 'Ready');
}

function renewTimeOf(lease: Lease): number {
  return Date.parse(lease.spec?.renewTime ?? '') || 0;
}

function sameCondition(a: NodeCondition | undefined, b: NodeCondition | undefined): boolean {
  return (
    a?.type === b?.type &&
    a?.status === b?.status &&
    (a?.reason ?? '') === (b?.reason ?? '') &&
    (a?.message ?? '') === (b?.message ?? '') &&
    (a?.lastHeartbeatTime ?? '') === (b?.lastHeartbeatTime ?? '') &&
    (a?.lastTransitionTime ?? '') === (b?.lastTransitionTime ?? '')
  );
}

export const nodeLifecycleController: ControllerDescriptor = {
  name: 'node-lifecycle-controller',
  create: (context) => new NodeLifecycleController(context),
};
