/**
 * A token bucket with the semantics of Go's `golang.org/x/time/rate.Limiter`: `burst` tokens at
 * most, refilled at `qps` per second. `reserve` always takes a token and says how long the caller
 * must wait for it (the balance may go negative, so reservations queue up); `tryAccept` takes one
 * only when it is there (client-go's passive limiter).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token; the milliseconds until it is really available (0 when at once). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Takes a token if one is available now. */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private refill(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.last) / 1000;
    this.last = Math.max(this.last, now);
    this.tokens = Math.min(this.burst, this.tokens + elapsed * this.qps);
  }
}
