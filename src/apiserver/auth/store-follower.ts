import { CompactedError, type Store, type Watch, type WatchEvent } from '../../storage/index.js';

export interface FollowHandlers {
  /** One batch of events, in revision order. */
  apply(events: readonly WatchEvent[]): void;
  /** Loads everything again after the watch fell behind compaction; returns the revision read at. */
  relist(): Promise<number>;
}

/**
 * Follows a key prefix of the store from a revision, the way an informer does after its list:
 * every write is handed over in order, and a watch overtaken by compaction starts over from a
 * fresh list. For in-memory caches the request path reads instead of the store.
 */
export class StoreFollower {
  private stopped = false;
  private watch?: Watch;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly handlers: FollowHandlers,
  ) {}

  /** Starts following after `revision`, in the background, until stop(). */
  start(revision: number): void {
    void this.follow(revision);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.close();
  }

  private async follow(revision: number): Promise<void> {
    let from = revision;
    while (!this.stopped) {
      try {
        this.watch = this.store.watch(this.prefix, { afterRevision: from, prefix: true });
        for await (const batch of this.watch) {
          this.handlers.apply(batch);
          from = batch[batch.length - 1]!.revision;
        }
        return;
      } catch (error) {
        if (this.stopped) return;
        if (!(error instanceof CompactedError)) throw error;
        from = await this.handlers.relist();
      }
    }
  }
}
