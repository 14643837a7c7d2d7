// Upstream: k8s.io/apiserver/pkg/util/flowcontrol (apf_controller.go, apf_filter.go). Classifies
// each request by the FlowSchemas in the store and holds it to its PriorityLevelConfiguration's
// seats: exempt levels run at once, limited ones queue fairly per flow or refuse with 429.
import { isJsonObject, type KubeObject } from '../../api/object.js';
import type { Store, WatchEvent } from '../../storage/index.js';
import { StoreFollower } from '../auth/store-follower.js';
import type { RequestInfo } from '../request-info.js';
import { matchesRules, type PolicyRulesWithSubjects, type RequestUser } from './matching.js';
import { QueueSet, type QueuingConfiguration, type RejectionReason, RequestRejected } from './queue-set.js';
import { maximumSeats } from './work-estimate.js';

/**
 * kube-apiserver shares --max-requests-inflight (400) plus --max-mutating-requests-inflight (200)
 * among the limited levels. One Node.js thread serves tkube's whole control plane, so a third of
 * that: enough that no level of a quiet cluster ever queues, few enough that a flood cannot keep
 * hundreds of requests in the event loop ahead of everyone else's.
 */
export const SERVER_CONCURRENCY_LIMIT = 200;
/** Upstream waits a quarter of the request timeout (60 s) for a seat. */
export const QUEUE_TIMEOUT_MS = 15_000;

/** What the request was classified as: the response carries the UIDs (never the names). */
export interface Classification {
  readonly flowSchema: string;
  readonly flowSchemaUid: string;
  readonly priorityLevel: string;
  readonly priorityLevelUid: string;
  readonly flow: string;
}

/** A granted request: `release` gives its seat back. */
export interface Admission {
  readonly classification: Classification;
  readonly release: () => void;
}

export class TooManyRequests extends Error {
  constructor(
    readonly classification: Classification,
    readonly reason: RejectionReason,
  ) {
    super('Too many requests, please try again later.');
  }
}

interface FlowSchemaEntry {
  readonly name: string;
  readonly uid: string;
  readonly precedence: number;
  readonly priorityLevel: string;
  readonly distinguisher: string | undefined;
  readonly rules: readonly PolicyRulesWithSubjects[];
}

interface PriorityLevel {
  readonly name: string;
  uid: string;
  readonly exempt: boolean;
  readonly shares: number;
  readonly queuing: QueuingConfiguration | undefined;
  /** Undefined for exempt levels. */
  queueSet: QueueSet | undefined;
  executingExempt: number;
}

type Counters = Map<string, number>;

export class FlowController {
  private schemas: FlowSchemaEntry[] = [];
  private readonly levels = new Map<string, PriorityLevel>();
  private readonly objects = {
    flowSchemas: new Map<string, KubeObject>(),
    levels: new Map<string, KubeObject>(),
  };
  private readonly followers: StoreFollower[];
  private readonly dispatched: Counters = new Map();
  private readonly rejected: Counters = new Map();
  private loaded = false;
  /** Called with each FlowSchema whose Dangling condition is missing or out of date. */
  onDanglingChange: ((flowSchema: KubeObject, dangling: boolean) => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly roots: { flowSchemas: string; priorityLevels: string },
    private readonly serverConcurrencyLimit = SERVER_CONCURRENCY_LIMIT,
    private readonly queueTimeoutMs = QUEUE_TIMEOUT_MS,
  ) {
    const follow = (prefix: string, into: Map<string, KubeObject>) =>
      new StoreFollower(store, prefix, {
        apply: (events) => {
          for (const event of events) this.applyEvent(into, prefix, event);
          this.rebuild();
        },
        relist: async () => {
          const revision = await this.load(prefix, into);
          this.rebuild();
          return revision;
        },
      });
    this.followers = [
      follow(roots.flowSchemas, this.objects.flowSchemas),
      follow(roots.priorityLevels, this.objects.levels),
    ];
  }

  async start(): Promise<void> {
    const [schemas, levels] = await Promise.all([
      this.load(this.roots.flowSchemas, this.objects.flowSchemas),
      this.load(this.roots.priorityLevels, this.objects.levels),
    ]);
    this.loaded = true;
    this.rebuild();
    this.followers[0]!.start(schemas);
    this.followers[1]!.start(levels);
  }

  stop(): void {
    for (const follower of this.followers) follower.stop();
    for (const level of this.levels.values()) level.queueSet?.rejectAll();
  }

  /** The first matching FlowSchema by precedence (then name) whose level exists. */
  classify(user: RequestUser, info: RequestInfo): Classification | undefined {
    for (const schema of this.schemas) {
      const level = this.levels.get(schema.priorityLevel);
      if (!level || !matchesRules(schema.rules, user, info)) continue;
      const flow =
        schema.distinguisher === 'ByUser'
          ? user.name
          : schema.distinguisher === 'ByNamespace' && info.isResourceRequest
            ? info.namespace
            : '';
      return {
        flowSchema: schema.name,
        flowSchemaUid: schema.uid,
        priorityLevel: level.name,
        priorityLevelUid: level.uid,
        flow: `${schema.name}/${flow}`,
      };
    }
    return undefined;
  }

  /**
   * Waits for the request's seat. Undefined before the configuration is loaded (everything runs,
   * as while kube-apiserver's config controller has not synced) or when nothing matches.
   * Throws TooManyRequests when the level refuses it.
   */
  async admit(
    user: RequestUser,
    info: RequestInfo,
    cancelled: (onCancel: () => void) => void,
    estimateSeats: (maxSeats: number) => Promise<number> = async () => 1,
  ): Promise<Admission | undefined> {
    if (!this.loaded) return undefined;
    const classification = this.classify(user, info);
    if (!classification) return undefined;
    const level = this.levels.get(classification.priorityLevel)!;
    const key = `${classification.priorityLevel}\u0000${classification.flowSchema}`;
    if (!level.queueSet) {
      level.executingExempt++;
      count(this.dispatched, key);
      let released = false;
      const release = () => {
        if (!released) level.executingExempt--;
        released = true;
      };
      return { classification, release };
    }
    try {
      const seats = await estimateSeats(maximumSeats(level.queueSet.concurrencyLimit));
      const release = await level.queueSet.acquire(classification.flow, seats, cancelled);
      count(this.dispatched, key);
      return { classification, release };
    } catch (error) {
      if (!(error instanceof RequestRejected)) throw error;
      count(this.rejected, `${key}\u0000${error.reason}`);
      throw new TooManyRequests(classification, error.reason);
    }
  }

  /** The apiserver_flowcontrol_* series kube-apiserver exports that cost nothing to keep. */
  renderMetrics(): string {
    const lines: string[] = [];
    const series = (name: string, help: string, type: string, rows: [string, number][]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of rows) lines.push(`${name}{${labels}} ${value}`);
    };
    const levels = [...this.levels.values()];
    const pl = (level: PriorityLevel) => `priority_level="${level.name}"`;
    series(
      'apiserver_flowcontrol_nominal_limit_seats',
      '[BETA] Nominal number of execution seats configured for each priority level',
      'gauge',
      levels.map((level) => [pl(level), level.queueSet?.concurrencyLimit ?? 0]),
    );
    series(
      'apiserver_flowcontrol_current_executing_requests',
      '[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      'gauge',
      levels.map((level) => [pl(level), level.queueSet?.executing ?? level.executingExempt]),
    );
    series(
      'apiserver_flowcontrol_current_inqueue_requests',
      '[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      'gauge',
      levels.map((level) => [pl(level), level.queueSet?.waiting ?? 0]),
    );
    const labelled = (key: string) => {
      const [level, schema, reason] = key.split('\u0000');
      return `flow_schema="${schema}",priority_level="${level}"${reason ? `,reason="${reason}"` : ''}`;
    };
    series(
      'apiserver_flowcontrol_dispatched_requests_total',
      '[BETA] Number of requests executed by API Priority and Fairness subsystem',
      'counter',
      [...this.dispatched].map(([key, value]) => [labelled(key), value]),
    );
    series(
      'apiserver_flowcontrol_rejected_requests_total',
      '[BETA] Number of requests rejected by API Priority and Fairness subsystem',
      'counter',
      [...this.rejected].map(([key, value]) => [labelled(key), value]),
    );
    return `${lines.join('\n')}\n`;
  }

  private async load(prefix: string, into: Map<string, KubeObject>): Promise<number> {
    const page = await this.store.list(prefix);
    into.clear();
    for (const item of page.items) into.set(item.key, JSON.parse(item.value) as KubeObject);
    return page.revision;
  }

  private applyEvent(into: Map<string, KubeObject>, _prefix: string, event: WatchEvent): void {
    if (event.type === 'delete') into.delete(event.key);
    else into.set(event.key, JSON.parse(event.value!) as KubeObject);
  }

  /** Takes in a changed configuration; levels that keep their spec keep their queues. */
  private rebuild(): void {
    const specs = [...this.objects.levels.values()].map(priorityLevelOf);
    const shares = specs.reduce((sum, level) => sum + (level.exempt ? 0 : level.shares), 0);
    const next = new Map<string, PriorityLevel>();
    for (const spec of specs) {
      const old = this.levels.get(spec.name);
      const limit = spec.exempt
        ? 0
        : Math.ceil((this.serverConcurrencyLimit * spec.shares) / Math.max(shares, 1));
      const sameShape =
        old !== undefined &&
        old.exempt === spec.exempt &&
        JSON.stringify(old.queuing) === JSON.stringify(spec.queuing);
      if (sameShape) {
        old.uid = spec.uid;
        if (old.queueSet) {
          old.queueSet.concurrencyLimit = limit;
          old.queueSet.dispatch();
        }
        next.set(spec.name, old);
        continue;
      }
      old?.queueSet?.rejectAll();
      spec.queueSet = spec.exempt ? undefined : new QueueSet(limit, spec.queuing, this.queueTimeoutMs);
      next.set(spec.name, spec);
    }
    for (const [name, old] of this.levels) if (!next.has(name)) old.queueSet?.rejectAll();
    this.levels.clear();
    for (const [name, level] of next) this.levels.set(name, level);
    this.schemas = [...this.objects.flowSchemas.values()]
      .map(flowSchemaOf)
      .sort((a, b) => a.precedence - b.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.reportDangling();
  }

  private reportDangling(): void {
    if (!this.onDanglingChange) return;
    for (const object of this.objects.flowSchemas.values()) {
      const schema = flowSchemaOf(object);
      const dangling = !this.objects.levels.has(`${this.roots.priorityLevels}${schema.priorityLevel}`);
      const status = (object as { status?: { conditions?: { type?: string; status?: string }[] } }).status;
      const current = status?.conditions?.find((condition) => condition.type === 'Dangling');
      if (current?.status !== (dangling ? 'True' : 'False')) this.onDanglingChange(object, dangling);
    }
  }
}

function count(counters: Counters, key: string): void {
  counters.set(key, (counters.get(key) ?? 0) + 1);
}

function flowSchemaOf(object: KubeObject): FlowSchemaEntry {
  const spec = (isJsonObject(object.spec) ? object.spec : {}) as {
    priorityLevelConfiguration?: { name?: string };
    matchingPrecedence?: number;
    distinguisherMethod?: { type?: string };
    rules?: PolicyRulesWithSubjects[];
  };
  return {
    name: object.metadata?.name ?? '',
    uid: object.metadata?.uid ?? '',
    // The defaulted value when unset.
    precedence: spec.matchingPrecedence ?? 1000,
    priorityLevel: spec.priorityLevelConfiguration?.name ?? '',
    distinguisher: spec.distinguisherMethod?.type,
    rules: spec.rules ?? [],
  };
}

function priorityLevelOf(object: KubeObject): PriorityLevel {
  const spec = (isJsonObject(object.spec) ? object.spec : {}) as {
    type?: string;
    limited?: {
      nominalConcurrencyShares?: number;
      limitResponse?: { type?: string; queuing?: Partial<QueuingConfiguration> };
    };
  };
  const limited = spec.limited;
  const queuing = limited?.limitResponse?.type === 'Queue' ? limited.limitResponse.queuing : undefined;
  return {
    name: object.metadata?.name ?? '',
    uid: object.metadata?.uid ?? '',
    exempt: spec.type === 'Exempt',
    // Upstream's defaults for unset fields.
    shares: limited?.nominalConcurrencyShares ?? 30,
    queuing: queuing
      ? {
          queues: queuing.queues ?? 64,
          handSize: queuing.handSize ?? 8,
          queueLengthLimit: queuing.queueLengthLimit ?? 50,
        }
      : undefined,
    queueSet: undefined,
    executingExempt: 0,
  };
}
