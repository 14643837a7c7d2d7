// Network policy enforcement's sync loop on one node (the part of a CNI plugin's policy agent such
// as kube-router's NetworkPolicyController that watches the API): pod, namespace and policy
// informers feed one queued key, so a burst of changes costs one sync, and each sync writes only
// the chains that changed in one iptables-restore. A failed restore changes nothing and is
// retried with the queue's backoff, from the chains then found on the node.
import type { Namespace, Pod } from '../../api/types/core-v1.generated.js';
import type { NetworkPolicy } from '../../api/types/networking-v1.generated.js';
import { Controller } from '../../client/controller.js';
import type { SharedInformer } from '../../client/informers/index.js';
import { nodePolicyIptables, type PolicyIptables } from './iptables.js';
import { isolatedPods } from './policy-model.js';
import { generatePolicyRules, type PolicyRules, policyRestoreInput } from './rules.js';

const KEY = 'network-policies';

export interface NetworkPolicyEnforcerOptions {
  readonly nodeName: string;
  readonly pods: SharedInformer<Pod>;
  readonly namespaces: SharedInformer<Namespace>;
  readonly policies: SharedInformer<NetworkPolicy>;
  readonly iptables?: PolicyIptables;
  /** How often every chain is written again; default 60 s. */
  readonly resyncPeriodMs?: number;
  /**
   * How often the jumps are checked to be first; default 5 s: the proxy inserts its own jumps
   * first when it (re)starts, and KUBE-FORWARD accepts some traffic outright.
   */
  readonly jumpCheckPeriodMs?: number;
  readonly log?: (message: string) => void;
  readonly now?: () => number;
}

export class NetworkPolicyEnforcer {
  readonly controller: Controller;
  private readonly iptables: PolicyIptables;
  private readonly resyncPeriodMs: number;
  private readonly jumpCheckPeriodMs: number;
  private lastJumpCheck = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  /** The chains of the last successful restore; undefined until then or after a failure. */
  private applied: ReadonlyMap<string, readonly string[]> | undefined;
  private appliedMain: readonly string[] = [];
  private lastFullSync = Number.NEGATIVE_INFINITY;
  private restores = 0;
  private lastRules: PolicyRules | undefined;

  constructor(private readonly options: NetworkPolicyEnforcerOptions) {
    this.iptables = options.iptables ?? nodePolicyIptables;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 60_000;
    this.jumpCheckPeriodMs = options.jumpCheckPeriodMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.controller = new Controller({
      name: 'network-policy',
      sync: () => this.sync(),
      log: options.log,
    });
    for (const informer of [options.pods, options.namespaces, options.policies] as const) {
      this.controller.watch<Pod | Namespace | NetworkPolicy>(
        informer as SharedInformer<Pod | Namespace | NetworkPolicy>,
        () => KEY,
      );
    }
  }

  /** Restores written so far (tests). */
  get restoreCount(): number {
    return this.restores;
  }

  /** The rules of the last sync. */
  get rules(): PolicyRules | undefined {
    return this.lastRules;
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  async sync(): Promise<void> {
    const { nodeName, pods, namespaces, policies } = this.options;
    const isolated = isolatedPods(
      { pods: pods.lister.list(), namespaces: namespaces.lister.list(), policies: policies.lister.list() },
      nodeName,
    );
    const rules = generatePolicyRules(isolated);
    this.lastRules = rules;
    const start = this.now();
    const full = this.applied === undefined || start - this.lastFullSync >= this.resyncPeriodMs;
    if (full || start - this.lastJumpCheck >= this.jumpCheckPeriodMs) {
      await this.iptables.ensureJumpsFirst();
      this.lastJumpCheck = start;
    }
    let previous: ReadonlyMap<string, readonly string[] | undefined>;
    if (full) {
      // Every chain found is written again or removed.
      previous = new Map([...(await this.iptables.policyChains())].map((chain) => [chain, undefined]));
    } else {
      previous = this.applied!;
      const unchanged =
        sameLines(this.appliedMain, rules.main) &&
        previous.size === rules.chains.size &&
        [...rules.chains].every(([chain, lines]) => sameLines(previous.get(chain), lines));
      if (unchanged) {
        this.scheduleResync();
        return;
      }
    }
    try {
      await this.iptables.restore(policyRestoreInput(rules, previous));
    } catch (error) {
      this.applied = undefined;
      throw error;
    }
    this.restores++;
    this.applied = rules.chains;
    this.appliedMain = rules.main;
    if (full) this.lastFullSync = start;
    this.scheduleResync();
  }

  private scheduleResync(): void {
    const due = Math.min(
      this.lastFullSync + this.resyncPeriodMs,
      this.lastJumpCheck + this.jumpCheckPeriodMs,
    );
    this.controller.enqueueAfter(KEY, Math.max(0, due - this.now()));
  }
}

function sameLines(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((line, i) => line === b[i]);
}
