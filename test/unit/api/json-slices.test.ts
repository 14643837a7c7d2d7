import { describe, expect, it } from 'vitest';
import { joinJsonSlices, sliceJson } from '../../../src/api/json-slices.js';

const managedFieldsLike = (containers: number) => [
  {
    manager: 'kubectl',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:spec': {
        'f:containers': Object.fromEntries(
          Array.from({ length: containers }, (_, i) => [
            `k:{"name":"c${i}"}`,
            { '.': {}, 'f:image': {}, 'f:name': {} },
          ]),
        ),
      },
    },
  },
];

async function roundTrip(
  value: unknown,
  maxChars: number,
): Promise<{ joined: unknown; pauses: number; slices: number }> {
  const slices = sliceJson(value, maxChars);
  let pauses = 0;
  const joined = await joinJsonSlices(
    structuredClone(slices),
    async () => {
      pauses++;
    },
    maxChars * 4,
  );
  return { joined, pauses, slices: slices.length };
}

describe('JSON slices', () => {
  it('puts a big value back together with every key in its order, in bounded slices', async () => {
    const value = managedFieldsLike(5_000);
    const slices = sliceJson(value, 4_096);
    expect(slices.length).toBeGreaterThan(20);
    for (const slice of slices) expect(slice.json?.length ?? 0).toBeLessThanOrEqual(4_096);
    const { joined, pauses } = await roundTrip(value, 4_096);
    expect(JSON.stringify(joined)).toBe(JSON.stringify(value));
    expect(pauses).toBeGreaterThan(5);
  });

  it('cuts arrays of big items and keeps their positions', async () => {
    const value = {
      first: 'a',
      list: [
        { small: 1 },
        { big: 'x'.repeat(300), more: Array.from({ length: 50 }, (_, i) => ({ i })) },
        null,
        [1, [2, [3]]],
        'z'.repeat(500),
      ],
      last: { nested: { deeper: Array.from({ length: 40 }, (_, i) => `v${i}`) } },
    };
    for (const maxChars of [16, 64, 256, 100_000]) {
      const { joined } = await roundTrip(value, maxChars);
      expect(JSON.stringify(joined)).toBe(JSON.stringify(value));
    }
  });

  it('treats values as JSON does: undefined left out of objects and null in arrays, __proto__ an own key', async () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":[1,2,3],"b":{"__proto__":[1]}}') as Record<
      string,
      unknown
    >;
    value.gone = undefined;
    (value.a as unknown[]).push(undefined);
    const { joined } = await roundTrip(value, 8);
    expect(JSON.stringify(joined)).toBe(JSON.stringify(value));
    expect(Object.hasOwn(joined as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(joined)).toBe(Object.prototype);
  });

  it('sends a small value or a scalar as one slice', async () => {
    expect(sliceJson({ a: 1 }, 1_000)).toEqual([{ at: [], op: 'set', json: '{"a":1}' }]);
    expect((await roundTrip('x'.repeat(50), 10)).joined).toBe('x'.repeat(50));
    expect((await roundTrip(42, 1)).joined).toBe(42);
  });

  it('refuses slices that do not fit together', async () => {
    await expect(joinJsonSlices([{ at: ['a', 'b'], op: 'set', json: '1' }], async () => {})).rejects.toThrow(
      'no container',
    );
    await expect(
      joinJsonSlices(
        [
          { at: [], op: 'object' },
          { at: [], op: 'entries', json: '[1]' },
        ],
        async () => {},
      ),
    ).rejects.toThrow('do not match');
  });
});
