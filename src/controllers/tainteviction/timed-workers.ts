// Deletions scheduled for later (the taint manager's TimedWorkerQueue): one timer per pod key.
// A fired deletion that succeeded keeps its key, so the pod is not scheduled again until the
// entry is cancelled (the pod is gone, or no longer needs evicting).

interface TimedWorker {
  readonly createdAt: number;
  readonly fireAt: number;
  readonly timer: NodeJS.Timeout;
}

export class TimedWorkerQueue {
  /** Pending workers by key; null for work that has run (or is running). */
  private readonly workers = new Map<string, TimedWorker | null>();

  constructor(private readonly work: (key: string, fireAt: number) => Promise<boolean>) {}

  /** Schedules work for `key` at `fireAt` unless some is scheduled (or done) already. */
  add(key: string, createdAt: number, fireAt: number): void {
    if (this.workers.has(key)) return;
    const run = (): void => {
      this.workers.set(key, null);
      void this.work(key, fireAt).then((succeeded) => {
        // A failed deletion may be scheduled again.
        if (!succeeded && this.workers.get(key) === null) this.workers.delete(key);
      });
    };
    const delay = fireAt - Date.now();
    if (delay <= 0) {
      run();
      return;
    }
    const timer = setTimeout(run, delay);
    timer.unref();
    this.workers.set(key, { createdAt, fireAt, timer });
  }

  /** Forgets the key; true when work was still pending (and is now cancelled). */
  cancel(key: string): boolean {
    const worker = this.workers.get(key);
    this.workers.delete(key);
    if (!worker) return false;
    clearTimeout(worker.timer);
    return true;
  }

  /** The pending work of a key, if any. */
  pending(key: string): { readonly createdAt: number; readonly fireAt: number } | undefined {
    return this.workers.get(key) ?? undefined;
  }

  /** Cancels everything pending (on shutdown). */
  stop(): void {
    for (const worker of this.workers.values()) if (worker) clearTimeout(worker.timer);
    this.workers.clear();
  }
}
