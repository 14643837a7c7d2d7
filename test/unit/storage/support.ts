import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import {
  SqliteStore,
  type SqliteStoreOptions,
  type Watch,
  type WatchEvent,
} from '../../../src/storage/index.js';
import { tempDir } from '../../support/temp.js';

export interface OpenedStore {
  store: SqliteStore;
  path: string;
}

/** Opens a store on a fresh file; closed when the test finishes. */
export function openStore(options: Partial<SqliteStoreOptions> = {}): OpenedStore {
  const path = options.path ?? join(tempDir(), 'state.db');
  const store = SqliteStore.open({ maintenanceIntervalMs: 60_000, ...options, path });
  onTestFinished(() => store.close());
  return { store, path };
}

/** Reads events from a watch until `count` have arrived (or the timeout passes). */
export async function collect(watch: Watch, count: number, timeoutMs = 5000): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const iterator = watch[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out after ${events.length} of ${count} events`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out after ${events.length} of ${count} events`)),
        remaining,
      );
    });
    try {
      const result = await Promise.race([iterator.next(), timeout]);
      if (result.done) break;
      events.push(...result.value);
    } finally {
      clearTimeout(timer);
    }
  }
  return events;
}

export function kb(n: number, fill = 'x'): string {
  return JSON.stringify({ data: fill.repeat(Math.max(0, n * 1024 - 12)) });
}
