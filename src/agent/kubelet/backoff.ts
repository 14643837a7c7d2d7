// client-go's flowcontrol.Backoff as the kubelet uses it for container restarts and image pulls:
// per key, a delay that starts at 10 s and doubles up to 5 min, and starts over once the key has
// been quiet for twice the maximum (so a container that ran 10 min crashes into a 10 s delay again).

export const INITIAL_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 5 * 60_000;

interface Entry {
  backoffMs: number;
  lastUpdate: number;
}

export class Backoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly initialMs = INITIAL_BACKOFF_MS,
    private readonly maxMs = MAX_BACKOFF_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current delay of the key (0 when it has none). */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /**
   * Moves the key to its next delay (updated now); `eventTime` (ms) more than twice the maximum
   * after the last update starts it over.
   */
  next(key: string, eventTime: number): void {
    const entry = this.entries.get(key);
    if (entry === undefined || this.expired(eventTime, entry.lastUpdate)) {
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: this.now() });
      return;
    }
    entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);
    entry.lastUpdate = this.now();
  }

  /** Whether less than the key's delay has passed since `eventTime` (a container's exit). */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined || this.expired(eventTime, entry.lastUpdate)) return false;
    return this.now() - eventTime < entry.backoffMs;
  }

  /** Whether less than the key's delay has passed since it was last moved on (an image pull). */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined || this.expired(eventTime, entry.lastUpdate)) return false;
    return eventTime - entry.lastUpdate < entry.backoffMs;
  }

  /** When the key's delay since its last update runs out (ms), if it has one. */
  expiresAt(key: string): number | undefined {
    const entry = this.entries.get(key);
    return entry ? entry.lastUpdate + entry.backoffMs : undefined;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets keys quiet for twice the maximum delay. */
  gc(): void {
    const now = this.now();
    for (const [key, entry] of this.entries)
      if (this.expired(now, entry.lastUpdate)) this.entries.delete(key);
  }

  /** Drops every key starting with `prefix` (a removed pod's). */
  forgetPrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  private expired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > 2 * this.maxMs;
  }
}
