// The proxy's sync loop (pkg/proxy/iptables/proxier.go with async.BoundedFrequencyRunner): Service
// and EndpointSlice informers mark the rules stale; a sync runs at most once per minSyncPeriod, so
// a burst of changes costs one sync, and at least once per syncPeriod; every fullSyncPeriod it is
// a full resync. A sync writes the filter table and the nat table's fixed chains whole and, after
// a full sync, only the service chains whose rules changed, in one iptables-restore: a failed
// restore changes nothing, is logged and retried as a full sync.
import { LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import type { Node, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import {
  DeletedFinalStateUnknown,
  type SharedInformer,
  waitForCacheSync,
} from '../../client/informers/index.js';
import { isServiceChain } from './chain-names.js';
import { runConntrack, staleConntrackCommands } from './conntrack.js';
import { endpointsBySlicePort, SERVICE_NAME_LABEL } from './endpoints.js';
import { ServiceHealthServer } from './health-check.js';
import { chainsOf, type Iptables, nodeIptables, parseSaved, type SavedTable } from './iptables.js';
import { ProxyMetrics } from './metrics.js';
import {
  generateRules,
  JUMP_RULES,
  type JumpRule,
  jumpInSaved,
  type ProxyRules,
  type ProxyState,
  restoreInput,
} from './rules.js';
import { servicePortsOf } from './service-ports.js';

/** The annotation the endpointslice controller sets to when the change that caused a slice write happened. */
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

export interface ProxierOptions {
  readonly nodeName: string;
  /** The pod network: traffic from it counts as from inside the cluster. */
  readonly clusterCIDR: string;
  readonly services: SharedInformer<Service>;
  readonly endpointSlices: SharedInformer<EndpointSlice>;
  /**
   * This node's own object (a field-selected informer), for its zone label as zone hints name it
   * (kube-proxy's NodeTopologyConfig). Without it the node counts as unlabelled.
   */
  readonly node?: SharedInformer<Node>;
  readonly iptables?: Iptables;
  readonly conntrack?: (args: readonly string[]) => Promise<void>;
  readonly metrics?: ProxyMetrics;
  /**
   * kube-proxy's `--iptables-min-sync-period`; default 250 ms here where upstream's is 1 s.
   * Upstream's default protects clusters whose sync takes seconds; here a partial sync of a
   * local cluster's few services takes milliseconds, and a test waiting for a Service should
   * not wait a second per change (issue 18's programming latency goal, p99 ≤ 1 s).
   */
  readonly minSyncPeriodMs?: number;
  /** Periodic resync, also the retry delay after a failed restore; default 30 s (`--iptables-sync-period`). */
  readonly syncPeriodMs?: number;
  /**
   * A resync at least this long after the last full one writes every chain again (and puts back
   * rules others removed); default 5 minutes: a full restore of 1,000 services takes seconds.
   */
  readonly fullSyncPeriodMs?: number;
  /** Health check node port servers; default one listening on every address. */
  readonly healthServer?: ServiceHealthServer;
  readonly log?: (message: string) => void;
  readonly now?: () => number;
}

function zoneOf(node: Node): string {
  return node.metadata?.labels?.[LABEL_TOPOLOGY_ZONE] ?? '';
}

/** See `ProxierOptions.minSyncPeriodMs`. */
export const DEFAULT_MIN_SYNC_PERIOD_MS = 250;

const EMPTY_STATE: ProxyState = { servicePorts: [], endpoints: new Map() };

export class Proxier {
  readonly metrics: ProxyMetrics;
  private readonly iptables: Iptables;
  private readonly conntrack: (args: readonly string[]) => Promise<void>;
  private readonly minSyncPeriodMs: number;
  private readonly syncPeriodMs: number;
  private readonly fullSyncPeriodMs: number;
  private lastFullSync = Number.NEGATIVE_INFINITY;
  private readonly healthServer: ServiceHealthServer;
  private readonly log: (message: string) => void;
  private readonly now: () => number;
  private readonly startedAt: number;

  /** The service chains of the last successful restore; undefined until the first. */
  private applied: ReadonlyMap<string, readonly string[]> | undefined;
  private appliedState: ProxyState = EMPTY_STATE;
  private needFullSync = true;
  /** Trigger times of slice changes not yet in a successful sync, by service. */
  private pendingTriggers = new Map<string, number[]>();
  /** When the oldest change not yet applied arrived. */
  private pendingSince: number | undefined;
  private lastSyncStart = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private timerDue = Number.POSITIVE_INFINITY;
  private running: Promise<void> | undefined;
  private rerun = false;
  private ready = false;
  private stopped = false;
  private lastRules: ProxyRules | undefined;
  private syncCount = 0;
  private lastUpdatedAt: number | undefined;

  constructor(private readonly options: ProxierOptions) {
    this.metrics = options.metrics ?? new ProxyMetrics();
    this.iptables = options.iptables ?? nodeIptables;
    this.conntrack = options.conntrack ?? runConntrack;
    this.minSyncPeriodMs = options.minSyncPeriodMs ?? DEFAULT_MIN_SYNC_PERIOD_MS;
    this.syncPeriodMs = options.syncPeriodMs ?? 30_000;
    this.fullSyncPeriodMs = options.fullSyncPeriodMs ?? 300_000;
    this.log = options.log ?? ((message) => console.error(message));
    this.healthServer = options.healthServer ?? new ServiceHealthServer(() => this.healthy(), this.log);
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Whether the rules are current: no change has waited longer than two sync periods. */
  healthy(): boolean {
    return this.pendingSince === undefined || this.now() - this.pendingSince < 2 * this.syncPeriodMs;
  }

  /** When the last successful sync finished (ms since the epoch). */
  lastUpdated(): number | undefined {
    return this.lastUpdatedAt;
  }

  /** Successful syncs so far (tests and logs). */
  get syncs(): number {
    return this.syncCount;
  }

  /** The rules of the last sync attempt. */
  get rules(): ProxyRules | undefined {
    return this.lastRules;
  }

  /** The node's zone label, as zone hints are matched against it. */
  private zone(): string {
    const node = this.options.node?.lister.list().find((n) => n.metadata?.name === this.options.nodeName);
    return node ? zoneOf(node) : '';
  }

  async run(signal: AbortSignal): Promise<void> {
    const { services, endpointSlices, node } = this.options;
    const registrations = [
      services.addEventHandler({
        onAdd: () => this.serviceChanged(),
        onUpdate: (before, after) => {
          if (before !== after) this.serviceChanged();
        },
        onDelete: () => this.serviceChanged(),
      }),
      endpointSlices.addEventHandler({
        onAdd: (slice) => this.sliceChanged(slice),
        onUpdate: (before, after) => {
          if (before !== after) this.sliceChanged(after);
        },
        onDelete: (slice) => this.sliceChanged(slice instanceof DeletedFinalStateUnknown ? slice.obj : slice),
      }),
      ...(node
        ? [
            node.addEventHandler({
              onAdd: (n) => {
                if (zoneOf(n) !== '') this.changed();
              },
              onUpdate: (before, after) => {
                if (zoneOf(before) !== zoneOf(after)) this.changed();
              },
              onDelete: () => this.changed(),
            }),
          ]
        : []),
    ];
    try {
      // As kube-proxy: no rules until both caches hold the whole state, or services would flap to REJECT.
      if (!(await waitForCacheSync(signal, registrations))) return;
      this.ready = true;
      this.schedule(0);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      this.stopped = true;
      for (const registration of registrations) registration.remove();
      if (this.timer) clearTimeout(this.timer);
      await this.running;
      if (this.resyncTimer) clearTimeout(this.resyncTimer);
      this.healthServer.close();
    }
  }

  private serviceChanged(): void {
    this.metrics.serviceChanges.inc();
    this.changed();
  }

  private sliceChanged(slice: EndpointSlice): void {
    this.metrics.endpointChanges.inc();
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    const annotation = slice.metadata?.annotations?.[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
    const triggerTime = annotation ? Date.parse(annotation) : Number.NaN;
    // Changes from before this proxy started were programmed by someone else, or never.
    if (service && triggerTime > this.startedAt) {
      const key = `${slice.metadata?.namespace ?? ''}/${service}`;
      const times = this.pendingTriggers.get(key) ?? [];
      if (!times.includes(triggerTime)) times.push(triggerTime);
      this.pendingTriggers.set(key, times);
    }
    this.changed();
  }

  private changed(): void {
    this.pendingSince ??= this.now();
    this.metrics.lastQueued.set([], this.now() / 1000);
    if (!this.ready) return;
    this.schedule(Math.max(0, this.lastSyncStart + this.minSyncPeriodMs - this.now()));
  }

  /** Runs a sync after `delayMs`, unless one is due sooner; a running sync reruns when done. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const due = this.now() + delayMs;
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Number.POSITIVE_INFINITY;
      this.trigger();
    }, delayMs);
  }

  private trigger(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.syncOnce().finally(() => {
      this.running = undefined;
      if (this.rerun && !this.stopped) {
        this.rerun = false;
        this.schedule(Math.max(0, this.lastSyncStart + this.minSyncPeriodMs - this.now()));
      }
    });
  }

  /** The jumps a full sync puts back: the save decides, `iptables -C` only where it cannot. */
  private async missingJumps(tables: ReadonlyMap<string, SavedTable>): Promise<JumpRule[]> {
    const missing: JumpRule[] = [];
    for (const jump of JUMP_RULES) {
      const found = jumpInSaved(jump, tables);
      if (found === 'absent') missing.push(jump);
      else if (found === 'unknown' && !(await this.iptables.hasRule(jump.table, jump.chain, jump.args)))
        missing.push(jump);
    }
    return missing;
  }

  /** One sync; never throws. Schedules the next: a retry after a failure, else the periodic resync. */
  private async syncOnce(): Promise<void> {
    const start = this.now();
    this.lastSyncStart = start;
    const full =
      this.needFullSync || this.applied === undefined || start - this.lastFullSync >= this.fullSyncPeriodMs;
    const triggers = this.pendingTriggers;
    this.pendingTriggers = new Map();
    const pendingSince = this.pendingSince;
    this.pendingSince = undefined;
    let succeeded = false;
    const state: ProxyState = {
      servicePorts: this.options.services.lister.list().flatMap(servicePortsOf),
      endpoints: endpointsBySlicePort(this.options.endpointSlices.lister.list(), this.options.nodeName),
    };
    try {
      const rules = generateRules(state, {
        clusterCIDR: this.options.clusterCIDR,
        nodeName: this.options.nodeName,
        zone: this.zone(),
      });
      this.lastRules = rules;
      let input: string;
      if (full) {
        const tables = parseSaved(await this.iptables.save());
        const existing = chainsOf(tables.get('nat'), isServiceChain);
        const stale = [...existing].filter((chain) => !rules.serviceChains.has(chain));
        input = restoreInput(rules, { staleChains: stale, jumps: await this.missingJumps(tables) });
      } else {
        input = restoreInput(rules, { previous: this.applied });
      }
      await this.iptables.restore(input);
      this.applied = rules.serviceChains;
      this.needFullSync = false;
      if (full) this.lastFullSync = start;
      const done = this.now();
      for (const times of triggers.values()) {
        for (const time of times)
          this.metrics.networkProgramming.observe([], Math.max(0, done - time) / 1000);
      }
      this.metrics.lastSync.set([], done / 1000);
      this.lastUpdatedAt = done;
      this.metrics.noLocalEndpoints.set(['internal'], rules.noLocalEndpoints.internal);
      this.metrics.noLocalEndpoints.set(['external'], rules.noLocalEndpoints.external);
      this.healthServer.sync(rules.healthChecks);
      await this.cleanConntrack(this.appliedState, state);
      this.appliedState = state;
      succeeded = true;
    } catch (error) {
      this.log(
        `proxy: ${full ? 'full' : 'partial'} sync failed, rules unchanged, next attempt in ${this.syncPeriodMs / 1000}s: ${String(error)}`,
      );
      this.metrics.restoreFailures.inc();
      if (!full) this.metrics.partialRestoreFailures.inc();
      // What this sync would have written must be written whole next time.
      this.needFullSync = true;
      for (const [key, times] of triggers)
        this.pendingTriggers.set(key, [...times, ...(this.pendingTriggers.get(key) ?? [])]);
      this.pendingSince = Math.min(pendingSince ?? start, this.pendingSince ?? start);
    } finally {
      const seconds = (this.now() - start) / 1000;
      this.metrics.syncDuration.observe([], seconds);
      (full ? this.metrics.fullSyncDuration : this.metrics.partialSyncDuration).observe([], seconds);
    }
    if (succeeded) this.syncCount++;
    // The next periodic resync (full when due, or after a failure).
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    if (!this.stopped) {
      this.resyncTimer = setTimeout(() => this.schedule(0), this.syncPeriodMs);
    }
  }

  private async cleanConntrack(before: ProxyState, after: ProxyState): Promise<void> {
    for (const args of staleConntrackCommands(before, after)) {
      await this.conntrack(args).catch((error: unknown) => this.log(`proxy: ${String(error)}`));
    }
  }
}
