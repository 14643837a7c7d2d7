// A big JSON value passed from a worker thread in slices (no upstream counterpart: Go decodes a
// big value on the goroutine that needs it; here decoding a thread's answer in one piece, such as
// the managedFields of a pod with 20,000 containers, holds the event loop for tens of ms). The
// thread cuts the value into slices of bounded JSON text; the event loop decodes a few at a time
// between other work and puts the value back together, every key in its order.

import { nextTask } from './next-task.js';

/** A key or an index on the way from the value's root. */
export type JsonStep = string | number;

export interface JsonSlice {
  /** Where the slice goes, from the root. */
  readonly at: readonly JsonStep[];
  /**
   * `set`: the JSON text is the value at `at`. `object`/`array`: an empty one is made at `at`, to
   * be filled by the slices that follow. `entries`: the text is an object (or array) whose entries
   * are appended, in order, to the object (or array) at `at`.
   */
  readonly op: 'set' | 'object' | 'array' | 'entries';
  readonly json?: string;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

/**
 * Cuts a JSON value into slices whose texts are each at most about `maxChars` (a value that cannot
 * be cut, a long string, stays whole). Values JSON leaves out (undefined) are left out here too.
 */
export function sliceJson(value: unknown, maxChars: number): JsonSlice[] {
  const slices: JsonSlice[] = [];
  const cut = (node: unknown, at: JsonStep[], json: string): void => {
    if (json.length <= maxChars || !isContainer(node)) {
      slices.push({ at, op: 'set', json });
      return;
    }
    const array = Array.isArray(node);
    slices.push({ at, op: array ? 'array' : 'object' });
    // Small neighbours travel together, as one `entries` slice.
    let batch: string[] = [];
    let batchChars = 0;
    const flush = () => {
      if (batch.length === 0) return;
      slices.push({ at, op: 'entries', json: array ? `[${batch.join(',')}]` : `{${batch.join(',')}}` });
      batch = [];
      batchChars = 0;
    };
    const entries: [JsonStep, unknown][] = array
      ? node.map((item, index) => [index, item])
      : Object.entries(node);
    for (const [step, item] of entries) {
      const text = JSON.stringify(item) ?? (array ? 'null' : undefined);
      if (text === undefined) continue;
      if (text.length > maxChars) {
        flush();
        cut(item, [...at, step], text);
        continue;
      }
      const entry = array ? text : `${JSON.stringify(step)}:${text}`;
      if (batchChars + entry.length > maxChars) flush();
      batch.push(entry);
      batchChars += entry.length + 1;
    }
    flush();
  };
  cut(value, [], JSON.stringify(value) ?? 'null');
  return slices;
}

/** Sets a key as JSON.parse would: `__proto__` included, as an own property. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * Puts sliced value back together, decoding about `charsPerTask` of JSON text in each task and
 * awaiting `pause` between tasks.
 */
export async function joinJsonSlices(
  slices: readonly JsonSlice[],
  pause: () => Promise<void> = nextTask,
  charsPerTask = 256 * 1024,
): Promise<unknown> {
  const root: Record<string, unknown> = {};
  const ROOT = 'value';
  let chars = 0;
  for (const slice of slices) {
    // The container the slice's last step is in (the root holder for the value itself).
    let parent: Record<string, unknown> | unknown[] = root;
    let last: JsonStep = ROOT;
    for (const step of slice.at) {
      const next: unknown = (parent as Record<JsonStep, unknown>)[last];
      if (!isContainer(next)) throw new Error(`JSON slice at ${JSON.stringify(slice.at)}: no container`);
      parent = next;
      last = step;
    }
    const place = (value: unknown) => {
      if (Array.isArray(parent)) parent[last as number] = value;
      else setKey(parent, String(last), value);
    };
    if (slice.op === 'object') place({});
    else if (slice.op === 'array') place([]);
    else {
      const value: unknown = JSON.parse(slice.json ?? 'null');
      chars += slice.json?.length ?? 0;
      if (slice.op === 'set') place(value);
      else {
        const target: unknown = (parent as Record<JsonStep, unknown>)[last];
        if (Array.isArray(target) && Array.isArray(value)) for (const item of value) target.push(item);
        else if (isContainer(target) && !Array.isArray(target) && isContainer(value) && !Array.isArray(value))
          for (const key of Object.keys(value)) setKey(target, key, value[key]);
        else
          throw new Error(`JSON slice at ${JSON.stringify(slice.at)}: entries do not match their container`);
      }
    }
    if (chars >= charsPerTask) {
      chars = 0;
      await pause();
    }
  }
  return root[ROOT];
}
