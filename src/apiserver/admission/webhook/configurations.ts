// The webhook configurations admission calls (k8s.io/apiserver/pkg/admission/configuration:
// mutating_webhook_manager.go, validating_webhook_manager.go): Mutating- and
// ValidatingWebhookConfigurations kept in memory from a store watch, their webhooks in the order
// upstream calls them (configurations sorted by name, webhooks in their listed order), with
// upstream's defaults applied and match conditions compiled once per stored version.
import type {
  MatchCondition,
  MutatingWebhook,
  ValidatingWebhook,
} from '../../../api/types/admissionregistration-v1.generated.js';
import type { Store, WatchEvent } from '../../../storage/index.js';
import { StoreFollower } from '../../auth/store-follower.js';
import { type CompiledPolicy, compilePolicy } from '../validating-admission-policy/compile.js';

/** One webhook of a configuration, defaulted as the v1 API defaults it. */
export interface Webhook {
  /** The configuration's name, for metrics and the reinvocation bookkeeping. */
  readonly configuration: string;
  /** Unique within the process: `<configuration>/<index>` (webhook names may repeat across configurations). */
  readonly key: string;
  readonly spec: MutatingWebhook | ValidatingWebhook;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly timeoutSeconds: number;
  readonly sideEffects: string;
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  /**
   * The match conditions compiled as a policy without validations, so that their evaluation
   * (cost budget, error texts, failure policy) is the one ValidatingAdmissionPolicy uses.
   */
  readonly conditions?: CompiledPolicy | undefined;
}

function compileConditions(
  conditions: readonly MatchCondition[] | undefined,
  failurePolicy: string,
): CompiledPolicy | undefined {
  if (conditions === undefined || conditions.length === 0) return undefined;
  return compilePolicy({ spec: { matchConditions: [...conditions], failurePolicy } });
}

function webhooksOf(configuration: string, text: string): Webhook[] {
  const object = JSON.parse(text) as { webhooks?: (MutatingWebhook | ValidatingWebhook)[] };
  return (object.webhooks ?? []).map((spec, index) => {
    const failurePolicy = spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    return {
      configuration,
      key: `${configuration}/${index}`,
      spec,
      failurePolicy,
      matchPolicy: spec.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
      timeoutSeconds: spec.timeoutSeconds ?? 10,
      sideEffects: spec.sideEffects ?? 'Unknown',
      reinvocationPolicy: (spec as MutatingWebhook).reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
      conditions: compileConditions(spec.matchConditions, failurePolicy),
    };
  });
}

/** The webhooks of one kind of configuration, from `<prefix><name>` keys. */
export class WebhookConfigurations {
  private readonly byName = new Map<string, Webhook[]>();
  private readonly follower: StoreFollower;
  private ordered: readonly Webhook[] = [];

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
  ) {
    this.follower = new StoreFollower(store, prefix, {
      apply: (events) => this.applyAll(events),
      relist: () => this.load(),
    });
  }

  async start(): Promise<void> {
    this.follower.start(await this.load());
  }

  stop(): void {
    this.follower.stop();
  }

  /** Every webhook, configurations sorted by name. */
  get webhooks(): readonly Webhook[] {
    return this.ordered;
  }

  private async load(): Promise<number> {
    const page = await this.store.list(this.prefix);
    this.byName.clear();
    for (const item of page.items) this.put(item.key, item.value);
    this.reorder();
    return page.revision;
  }

  private applyAll(events: readonly WatchEvent[]): void {
    for (const event of events) {
      if (event.type === 'delete') this.byName.delete(event.key.slice(this.prefix.length));
      else this.put(event.key, event.value!);
    }
    this.reorder();
  }

  private put(key: string, text: string): void {
    const name = key.slice(this.prefix.length);
    this.byName.set(name, webhooksOf(name, text));
  }

  private reorder(): void {
    const names = [...this.byName.keys()].sort();
    this.ordered = names.flatMap((name) => this.byName.get(name)!);
  }
}
