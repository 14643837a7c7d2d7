// The container runtime's health as the node's Ready condition reports it: CRI Status polled
// (every second until ready, then every 5 s), turned into the kubelet's not-ready messages
// (`container runtime network not ready: NetworkReady=false reason:... message:...`).
import type { CriClient } from './cri/client.js';
import type { RuntimeCondition } from './cri/types.js';

const READY_INTERVAL_MS = 5000;
const NOT_READY_INTERVAL_MS = 1000;
const STATUS_TIMEOUT_MS = 5000;

function describe(condition: RuntimeCondition | undefined, type: string): string {
  if (!condition) return `${type}=false reason: message:`;
  return `${condition.type}=${condition.status} reason:${condition.reason} message:${condition.message}`;
}

/** The kubelet's reasons for a not-ready node, from the runtime's conditions (none when ready). */
export function runtimeNotReadyReasons(conditions: readonly RuntimeCondition[] | undefined): string[] {
  if (conditions === undefined) return ['container runtime is down'];
  const runtime = conditions.find((c) => c.type === 'RuntimeReady');
  const network = conditions.find((c) => c.type === 'NetworkReady');
  const reasons: string[] = [];
  if (!runtime?.status) reasons.push(`container runtime not ready: ${describe(runtime, 'RuntimeReady')}`);
  if (!network?.status)
    reasons.push(`container runtime network not ready: ${describe(network, 'NetworkReady')}`);
  return reasons;
}

export class RuntimeHealth {
  private reasons: string[] = ['container runtime status check may not have completed yet'];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cri: CriClient,
    private readonly onChange: (reasons: readonly string[]) => void = () => {},
  ) {}

  /** Why the node is not ready as far as the runtime goes; empty when it is. */
  notReadyReasons(): readonly string[] {
    return this.reasons;
  }

  /** Polls until the signal aborts. */
  start(signal: AbortSignal): void {
    const tick = async () => {
      if (signal.aborted) return;
      await this.check();
      if (signal.aborted) return;
      this.timer = setTimeout(tick, this.reasons.length === 0 ? READY_INTERVAL_MS : NOT_READY_INTERVAL_MS);
    };
    void tick();
    signal.addEventListener('abort', () => clearTimeout(this.timer), { once: true });
  }

  async check(): Promise<readonly string[]> {
    let conditions: RuntimeCondition[] | undefined;
    try {
      conditions = await this.cri.status(STATUS_TIMEOUT_MS);
    } catch {
      conditions = undefined;
    }
    const reasons = runtimeNotReadyReasons(conditions);
    const changed = reasons.join('\n') !== this.reasons.join('\n');
    this.reasons = reasons;
    if (changed) this.onChange(reasons);
    return reasons;
  }
}
