export interface BackoffOptions {
  /** First delay (client-go's reflector: 800 ms). */
  readonly initialMs?: number;
  /** Delays stop growing here (30 s). */
  readonly maxMs?: number;
  readonly factor?: number;
  /** Each delay is stretched by a random share up to this factor (1.0: up to twice as long). */
  readonly jitter?: number;
  /** After this long without a delay asked for, start again from the first one (2 min). */
  readonly resetMs?: number;
}

/**
 * Exponential backoff with jitter and reset, as client-go's reflector uses it between failed
 * list-and-watch rounds: 0.8 s, 1.6 s ... capped at 30 s, each up to twice as long by jitter.
 */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetMs: number;
  private currentMs: number;
  private lastAsked = Number.NEGATIVE_INFINITY;

  constructor(
    options: BackoffOptions = {},
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.resetMs = options.resetMs ?? 120_000;
    this.currentMs = this.initialMs;
  }

  /** The next delay in milliseconds. */
  next(): number {
    const now = this.now();
    if (now - this.lastAsked > this.resetMs) this.currentMs = this.initialMs;
    this.lastAsked = now;
    const delay = this.currentMs;
    this.currentMs = Math.min(this.currentMs * this.factor, this.maxMs);
    return delay + this.random() * this.jitter * delay;
  }
}
