import type { Readable } from 'node:stream';
import { releaseHeapSoon } from '../../api/heap-release.js';
import { LARGE_OBJECT_BYTES } from '../../api/large-objects.js';
import type { ApiObject, WatchEvent } from '../types.js';

/**
 * The events of a watch response: one JSON object per line. A stream that breaks (reset,
 * cancelled, the connection lost) ends the events without an error, as client-go treats a
 * broken watch: the caller watches again from the last resourceVersion it saw.
 */
export async function* watchEvents<T extends ApiObject>(stream: Readable): AsyncGenerator<WatchEvent<T>> {
  stream.setEncoding('utf8');
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<string>;
  let buffered = '';
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = await chunks.next();
    } catch {
      return;
    }
    if (next.done) break;
    buffered += next.value;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.length >= LARGE_OBJECT_BYTES) releaseHeapSoon();
      if (line.trim() !== '') yield JSON.parse(line) as WatchEvent<T>;
      newline = buffered.indexOf('\n');
    }
  }
  // Every event ends with a newline; text after the last one is what a broken stream cut off.
}
