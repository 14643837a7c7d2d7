// The DaemonSet controller's backoff for failed pods (failedPodsBackoff, a flowcontrol.Backoff of
// 1 s doubling to 15 min, keyed by DaemonSet and node): a node whose kubelet keeps rejecting the
// daemon pod does not make the controller delete and recreate it in a hot loop.
const INITIAL_MS = 1_000;
const MAX_MS = 15 * 60_000;

interface Entry {
  delayMs: number;
  lastUpdateMs: number;
}

export class FailedPodsBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly initialMs = INITIAL_MS,
    private readonly maxMs = MAX_MS,
  ) {}

  /** Whether the key's last failure is more recent than its current delay. */
  inBackoff(key: string, nowMs: number): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && nowMs - entry.lastUpdateMs < entry.delayMs;
  }

  /** The key's current delay (0 when it has none). */
  delay(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  /** Records a failure: the delay starts at the initial one, or doubles up to the maximum. */
  next(key: string, nowMs: number): void {
    const entry = this.entries.get(key);
    if (entry === undefined || nowMs - entry.lastUpdateMs > 2 * this.maxMs) {
      this.entries.set(key, { delayMs: this.initialMs, lastUpdateMs: nowMs });
      return;
    }
    entry.delayMs = Math.min(entry.delayMs * 2, this.maxMs);
    entry.lastUpdateMs = nowMs;
  }

  /** Drops entries idle for twice the maximum delay (the GC the upstream controller runs). */
  gc(nowMs: number): void {
    for (const [key, entry] of this.entries)
      if (nowMs - entry.lastUpdateMs > 2 * this.maxMs) this.entries.delete(key);
  }
}
