// The policies and bindings admission evaluates, kept in memory from a store watch as upstream's
// policy source keeps them from informers; each policy is compiled once per stored version, and
// each binding is filed under the policy it names.
import type {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from '../../../api/types/admissionregistration-v1.generated.js';
import type { Store, WatchEvent } from '../../../storage/index.js';
import { StoreFollower } from '../../auth/store-follower.js';
import { type CompiledPolicy, compilePolicy } from './compile.js';

interface PolicyEntry {
  readonly policy: ValidatingAdmissionPolicy;
  compiled?: CompiledPolicy;
}

/** Policies by name and bindings by name, from `/registry/<resource>/<name>` keys. */
export class PolicyCache {
  private readonly policies = new Map<string, PolicyEntry>();
  private readonly bindings = new Map<string, ValidatingAdmissionPolicyBinding>();
  private readonly followers: StoreFollower[];

  /**
   * `onStale`: called with each stored policy whose status has not yet observed its generation
   * (the status controller's work queue).
   */
  constructor(
    private readonly store: Store,
    private readonly policyPrefix: string,
    private readonly bindingPrefix: string,
    private readonly onStale?: (policy: ValidatingAdmissionPolicy) => void,
  ) {
    this.followers = [
      new StoreFollower(store, policyPrefix, {
        apply: (events) => this.applyAll(events, policyPrefix),
        relist: () => this.load(policyPrefix),
      }),
      new StoreFollower(store, bindingPrefix, {
        apply: (events) => this.applyAll(events, bindingPrefix),
        relist: () => this.load(bindingPrefix),
      }),
    ];
  }

  async start(): Promise<void> {
    const [policies, bindings] = [await this.load(this.policyPrefix), await this.load(this.bindingPrefix)];
    this.followers[0]!.start(policies);
    this.followers[1]!.start(bindings);
  }

  stop(): void {
    for (const follower of this.followers) follower.stop();
  }

  /** True when no binding exists: admission then has nothing to evaluate. */
  get empty(): boolean {
    return this.bindings.size === 0;
  }

  /** Every binding with the compiled policy it names; bindings of missing policies are skipped. */
  *bound(): Generator<{ policy: CompiledPolicy; binding: ValidatingAdmissionPolicyBinding }> {
    for (const binding of this.bindings.values()) {
      const entry = this.policies.get(binding.spec?.policyName ?? '');
      if (entry === undefined) continue;
      entry.compiled ??= compilePolicy(entry.policy);
      yield { policy: entry.compiled, binding };
    }
  }

  /** The compiled policy of this name, if stored. */
  compiled(name: string): CompiledPolicy | undefined {
    const entry = this.policies.get(name);
    if (entry === undefined) return undefined;
    entry.compiled ??= compilePolicy(entry.policy);
    return entry.compiled;
  }

  private async load(prefix: string): Promise<number> {
    const page = await this.store.list(prefix);
    if (prefix === this.policyPrefix) this.policies.clear();
    else this.bindings.clear();
    for (const item of page.items) this.put(prefix, item.key, item.value);
    return page.revision;
  }

  private applyAll(events: readonly WatchEvent[], prefix: string): void {
    for (const event of events) {
      if (event.type !== 'delete') this.put(prefix, event.key, event.value!);
      else if (prefix === this.policyPrefix) this.policies.delete(event.key.slice(prefix.length));
      else this.bindings.delete(event.key.slice(prefix.length));
    }
  }

  private put(prefix: string, key: string, text: string): void {
    const name = key.slice(prefix.length);
    if (prefix === this.bindingPrefix) {
      this.bindings.set(name, JSON.parse(text) as ValidatingAdmissionPolicyBinding);
      return;
    }
    // A status write leaves the spec as it was: keep the compiled policy of the same generation.
    const policy = JSON.parse(text) as ValidatingAdmissionPolicy;
    const previous = this.policies.get(name);
    const entry: PolicyEntry = { policy };
    if (
      previous?.compiled !== undefined &&
      previous.policy.metadata?.generation === policy.metadata?.generation
    )
      entry.compiled = previous.compiled;
    this.policies.set(name, entry);
    const generation = Number(policy.metadata?.generation ?? 0);
    if (generation > Number(policy.status?.observedGeneration ?? 0)) this.onStale?.(policy);
  }
}
