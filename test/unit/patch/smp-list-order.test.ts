import { describe, expect, it } from 'vitest';
import { deduplicateScalarsInPlace, goSliceStable } from '../../../src/apiserver/patch/smp-list-order.js';

describe('goSliceStable', () => {
  it('sorts stably like any stable sort when the comparator is consistent', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (const size of [0, 1, 5, 19, 20, 21, 40, 57, 130]) {
      const items = Array.from({ length: size }, (_, id) => ({ id, key: random(7) }));
      const expected = [...items].sort((a, b) => a.key - b.key);
      goSliceStable(items, (a, b) => a.key < b.key);
      expect(items).toEqual(expected);
    }
  });
});

describe('deduplicateScalarsInPlace', () => {
  it('moves the last item into a duplicate slot, as apimachinery does', () => {
    const list = ['a', 'b', 'a', 'c'];
    const length = deduplicateScalarsInPlace(list);
    expect(list.slice(0, length)).toEqual(['a', 'b', 'c']);
    expect(list).toEqual(['a', 'b', 'c', 'c']);
  });
});
