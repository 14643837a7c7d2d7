import { expect, it } from 'vitest';
import { type KeyValue, StoreError } from '../../../src/storage/index.js';
import { collect, describeEachStore } from './support.js';

/** A tiny deterministic PRNG, so a failure can be replayed from its seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The state of every key at every revision, as a reference for the store. */
class Model {
  readonly states = new Map<number, Map<string, KeyValue>>();
  constructor(private current: Map<string, KeyValue>) {}
  record(revision: number, mutate: (state: Map<string, KeyValue>) => void): void {
    const next = new Map(this.current);
    mutate(next);
    this.current = next;
    this.states.set(revision, next);
  }
  at(revision: number): Map<string, KeyValue> {
    let best = -1;
    for (const rev of this.states.keys()) if (rev <= revision && rev > best) best = rev;
    return this.states.get(best) ?? new Map();
  }
}

describeEachStore('store against a reference model', (backend) => {
  for (const seed of [1, 2, 3]) {
    it(`random writes, reads at random revisions, paginated lists and watches (seed ${seed})`, async () => {
      const random = prng(seed);
      const { store } = await backend.open({ historyRevisions: 150 });
      const start = store.currentRevision();
      const model = new Model(new Map());
      model.states.set(start, new Map());
      const keys = Array.from({ length: 25 }, (_, i) => `/m/${String.fromCharCode(97 + (i % 5))}/k${i}`);
      for (let step = 0; step < 600; step++) {
        const key = keys[Math.floor(random() * keys.length)]!;
        const choice = random();
        try {
          if (choice < 0.4) {
            const kv = await store.create(key, `c${step}`);
            model.record(kv.modRevision, (s) => s.set(key, kv));
          } else if (choice < 0.8) {
            const { current } = await store.update(key, `u${step}`);
            model.record(current.modRevision, (s) => s.set(key, current));
          } else {
            const { revision } = await store.delete(key);
            model.record(revision, (s) => s.delete(key));
          }
        } catch (error) {
          expect(error).toBeInstanceOf(StoreError);
        }
        if (step % 50 === 49) await store.maintain();
      }
      const current = store.currentRevision();
      const oldest = store.compactedRevision();
      expect(oldest).toBe(current - 150);
      for (let probe = 0; probe < 60; probe++) {
        const revision = oldest + Math.floor(random() * (current - oldest + 1));
        const expected = [...model.at(revision).values()]
          .filter((kv) => kv.key.startsWith('/m/b/') || kv.key.startsWith('/m/c/'))
          .sort((x, y) => (x.key < y.key ? -1 : 1));
        const prefix = random() < 0.5 ? '/m/b/' : '/m/c/';
        const wanted = expected.filter((kv) => kv.key.startsWith(prefix));
        const items: KeyValue[] = [];
        let token: string | undefined;
        let first = true;
        do {
          const page = await store.list(
            prefix,
            first ? { revision, limit: 2 } : { limit: 2, continue: token },
          );
          first = false;
          items.push(...page.items);
          token = page.continue;
        } while (token);
        expect(items).toEqual(wanted);
        const key = keys[Math.floor(random() * keys.length)]!;
        expect(await store.get(key, { revision })).toEqual(model.at(revision).get(key));
      }
      // A watch from the compacted revision replays exactly the model's transitions.
      const watch = store.watch('/m/', { afterRevision: oldest, prefix: true });
      const events = await collect(watch, current - oldest);
      watch.close();
      expect(events.map((e) => e.revision)).toEqual(
        Array.from({ length: current - oldest }, (_, i) => oldest + 1 + i),
      );
      for (const event of events) {
        const before = model.at(event.revision - 1).get(event.key);
        const after = model.at(event.revision).get(event.key);
        expect(event.prevValue).toBe(event.type === 'create' ? undefined : before?.value);
        expect(event.value).toBe(after?.value);
      }
    });
  }
});
