// RuntimeClass admission's toleration merge (util/tolerations.MergeTolerations): a toleration
// another one covers is dropped; of two equal ones the first stays.
import { describe, expect, it } from 'vitest';
import type { Toleration } from '../../../src/api/types/core-v1.generated.js';
import { mergeTolerations } from '../../../src/apiserver/admission/plugins/runtime-class.js';

const exists = (key: string, effect?: string): Toleration => ({
  key,
  operator: 'Exists',
  ...(effect && { effect }),
});
const equal = (key: string, value: string, effect?: string): Toleration => ({
  key,
  operator: 'Equal',
  value,
  ...(effect && { effect }),
});
const noExecute = (key: string, seconds?: number): Toleration => ({
  key,
  operator: 'Exists',
  effect: 'NoExecute',
  ...(seconds !== undefined && { tolerationSeconds: seconds }),
});

describe('mergeTolerations', () => {
  const cases: [string, Toleration[], Toleration[], Toleration[]][] = [
    ['both empty', [], [], []],
    ['disjoint keys keep both, pod first', [exists('a')], [exists('b')], [exists('a'), exists('b')]],
    ['an equal pair keeps the first', [equal('a', '1')], [equal('a', '1')], [equal('a', '1')]],
    ['Exists covers Equal of the same key', [equal('a', '1', 'NoSchedule')], [exists('a')], [exists('a')]],
    [
      'Equal does not cover another value',
      [equal('a', '1')],
      [equal('a', '2')],
      [equal('a', '1'), equal('a', '2')],
    ],
    ['an empty effect covers every effect', [exists('a', 'NoSchedule')], [exists('a')], [exists('a')]],
    [
      'a set effect covers only itself',
      [exists('a', 'NoSchedule')],
      [exists('a', 'NoExecute')],
      [exists('a', 'NoSchedule'), exists('a', 'NoExecute')],
    ],
    [
      'an empty key with Exists covers every key',
      [exists('a'), equal('b', '1')],
      [{ operator: 'Exists' }],
      [{ operator: 'Exists' }],
    ],
    [
      'a longer NoExecute window covers a shorter one',
      [noExecute('a', 300)],
      [noExecute('a', 600)],
      [noExecute('a', 600)],
    ],
    ['no window covers any window', [noExecute('a', 300)], [noExecute('a')], [noExecute('a')]],
    ['a window does not cover no window', [noExecute('a')], [noExecute('a', 600)], [noExecute('a')]],
    [
      'an empty operator means Equal, but only covers an explicit Equal',
      [{ key: 'a', value: '1' }, equal('a', '1')],
      [],
      [{ key: 'a', value: '1' }],
    ],
  ];
  it.each(cases)('%s', (_name, first, second, merged) => {
    expect(mergeTolerations(first, second)).toEqual(merged);
  });
});
