// Registers this node and keeps its status current, as the kubelet's node status manager does:
// a status check every 10 s, written only when something changed or 5 min have passed (the
// Lease is the heartbeat; see lease.ts).
import { setTimeout as delay } from 'node:timers/promises';
import { isExtendedResourceName } from '../../api/resource-names.js';
import type { Node, NodeCondition, NodeStatus } from '../../api/types/core-v1.generated.js';
import { NODES } from '../../client/resources.js';
import { isAlreadyExists } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { type NodeHealth, nodeConditions, sameConditions } from './conditions.js';
import { initialNode, type NodeFacts, type NodeIdentity, wellKnownLabels } from './node-object.js';

export const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;
export const NODE_STATUS_REPORT_FREQUENCY_MS = 5 * 60_000;

export interface NodeStatusSources {
  readonly facts: () => Promise<NodeFacts>;
  readonly health: () => Promise<NodeHealth>;
  readonly now?: () => Date;
}

const REGISTER_RETRY_FIRST_MS = 100;
const REGISTER_RETRY_MAX_MS = 500;

export class NodeStatusManager {
  private lastReport = 0;
  private lastConditions: NodeCondition[] | undefined;
  private lastFacts = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Client,
    private readonly identity: NodeIdentity,
    private readonly sources: NodeStatusSources,
  ) {}

  /**
   * Creates the Node, or adopts an existing one (a restarted node): the kubelet re-asserts its
   * well-known labels and reports fresh status either way. Returns the registered Node.
   */
  async register(): Promise<Node> {
    const nodes = this.client.resource<Node>(NODES);
    const facts = await this.sources.facts();
    const node = initialNode(this.identity, facts);
    node.status!.conditions = nodeConditions(await this.sources.health(), undefined, this.now());
    try {
      const created = await nodes.create(node);
      this.remember(node.status!.conditions, JSON.stringify(facts));
      return created;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const labels = {
      ...wellKnownLabels(this.identity.name, facts.systemInfo.architecture),
      ...this.identity.labels,
    };
    await nodes.patch('', this.identity.name, 'strategic', { metadata: { labels } });
    return this.report(true);
  }

  /**
   * register() until it succeeds, as the kubelet's registerWithAPIServer retries: `tkube up`
   * starts the agents while the control plane starts, so the first attempts may find no API
   * server yet. Waits 100 ms, doubling up to 500 ms (the kubelet goes on to 7 s; here the wait is
   * for one local process). A failure is logged when its message changes. Rejects once `signal`
   * aborts.
   */
  async registerWithRetry(signal: AbortSignal, log: (line: string) => void): Promise<Node> {
    let delayMs = REGISTER_RETRY_FIRST_MS;
    let lastMessage: string | undefined;
    for (;;) {
      try {
        return await this.register();
      } catch (error) {
        signal.throwIfAborted();
        const message = error instanceof Error ? error.message : String(error);
        if (message !== lastMessage)
          log(`unable to register node ${this.identity.name} with the API server: ${message}`);
        lastMessage = message;
      }
      // A timer that keeps the process alive: before registering, nothing else may.
      await delay(delayMs, undefined, { signal }).catch(() => undefined);
      signal.throwIfAborted();
      delayMs = Math.min(delayMs * 2, REGISTER_RETRY_MAX_MS);
    }
  }

  /** Checks status every 10 s until `signal` aborts. */
  start(signal: AbortSignal): void {
    const tick = () => {
      if (signal.aborted) return;
      this.report(false)
        .catch((error: unknown) => console.error(`node status update failed: ${String(error)}`))
        .finally(() => {
          if (!signal.aborted) this.timer = setTimeout(tick, NODE_STATUS_UPDATE_FREQUENCY_MS);
        });
    };
    this.timer = setTimeout(tick, NODE_STATUS_UPDATE_FREQUENCY_MS);
    signal.addEventListener('abort', () => clearTimeout(this.timer), { once: true });
  }

  /** Writes status when it changed, when forced, or when the report interval has passed. */
  async report(force: boolean): Promise<Node> {
    const nodes = this.client.resource<Node>(NODES);
    const current = await nodes.get('', this.identity.name);
    const facts = await this.sources.facts();
    const conditions = nodeConditions(await this.sources.health(), current.status?.conditions, this.now());
    const factsText = JSON.stringify(facts);
    const due = this.now().getTime() - this.lastReport >= NODE_STATUS_REPORT_FREQUENCY_MS;
    const unchanged =
      factsText === this.lastFacts &&
      sameConditions(conditions, this.lastConditions) &&
      !allocatableLags(facts.resources.allocatable, current.status);
    if (!force && !due && unchanged) return current;
    const allocatable = reportedAllocatable(facts.resources.allocatable, current.status);
    const updated = await nodes.patch(
      '',
      this.identity.name,
      'strategic',
      {
        status: {
          capacity: facts.resources.capacity,
          allocatable,
          nodeInfo: facts.systemInfo,
          conditions,
        },
      },
      { subresource: 'status' },
    );
    this.remember(conditions, factsText);
    return updated;
  }

  private remember(conditions: NodeCondition[], factsText: string): void {
    this.lastConditions = conditions;
    this.lastFacts = factsText;
    this.lastReport = this.now().getTime();
  }

  private now(): Date {
    return this.sources.now?.() ?? new Date();
  }
}

/**
 * The allocatable patch the kubelet's MachineInfo setter makes: its own resources, every other
 * capacity entry (an extended resource a user or device plugin added, as the docs' "advertise
 * extended resources" PATCH does) copied across with nothing reserved, and extended resources
 * gone from capacity removed (null deletes a map entry in a strategic merge patch).
 */
export function reportedAllocatable(
  own: Readonly<Record<string, string>>,
  status: NodeStatus | undefined,
): Record<string, string | null> {
  const allocatable: Record<string, string | null> = { ...own };
  const capacity = status?.capacity ?? {};
  for (const [name, quantity] of Object.entries(capacity)) {
    if (!(name in own)) allocatable[name] = quantity;
  }
  for (const name of Object.keys(status?.allocatable ?? {})) {
    if (!(name in capacity) && !(name in own) && isExtendedResourceName(name)) allocatable[name] = null;
  }
  return allocatable;
}

/**
 * Whether the Node's allocatable lags what `reportedAllocatable` would write for the entries the
 * kubelet does not own: someone changed capacity since the last status write.
 */
export function allocatableLags(
  own: Readonly<Record<string, string>>,
  status: NodeStatus | undefined,
): boolean {
  const current = status?.allocatable ?? {};
  for (const [name, quantity] of Object.entries(reportedAllocatable(own, status))) {
    if (name in own) continue;
    if (quantity === null ? name in current : current[name] !== quantity) return true;
  }
  return false;
}
