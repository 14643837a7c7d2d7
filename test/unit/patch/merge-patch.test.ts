import { describe, expect, it } from 'vitest';
import { applyMergePatch, createMergePatch, type JsonObject } from '../../../src/apiserver/patch/index.js';

// RFC 7386 appendix A: target, patch, result.
const rfcExamples: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('applyMergePatch', () => {
  it.each(rfcExamples)('RFC 7386: %j + %j', (target, patch, result) => {
    const before = structuredClone(target);
    expect(applyMergePatch(target, patch)).toEqual(result);
    expect(target).toEqual(before);
  });

  it('kubectl label/annotate: adds and removes keys of a map', () => {
    const pod = { metadata: { name: 'p', labels: { app: 'web', tier: 'fe' }, annotations: { a: '1' } } };
    const patch = { metadata: { labels: { tier: null, env: 'prod' }, annotations: { b: '2' } } };
    expect(applyMergePatch(pod, patch)).toEqual({
      metadata: { name: 'p', labels: { app: 'web', env: 'prod' }, annotations: { a: '1', b: '2' } },
    });
  });

  it('kubectl patch --type merge: replaces lists whole', () => {
    const deployment = { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } };
    const patch = { spec: { template: { spec: { containers: [{ name: 'c', image: 'redis' }] } } } };
    expect(applyMergePatch(deployment, patch)).toEqual(patch);
  });

  it('drops nulls inside a value taken whole, even in arrays, as Kubernetes does', () => {
    expect(applyMergePatch({}, { a: [{ b: null, c: 1 }, null] })).toEqual({ a: [{ c: 1 }, null] });
    expect(applyMergePatch({ a: {} }, { a: [{ b: null }] })).toEqual({ a: [{ b: null }] });
  });
});

describe('createMergePatch', () => {
  const cases: { name: string; original: JsonObject; modified: JsonObject; patch: JsonObject }[] = [
    { name: 'no change', original: { a: 1, b: { c: [1] } }, modified: { a: 1, b: { c: [1] } }, patch: {} },
    {
      name: 'changed and added members',
      original: { a: 1 },
      modified: { a: 2, b: 3 },
      patch: { a: 2, b: 3 },
    },
    {
      name: 'removed members become null',
      original: { a: 1, b: { c: 1, d: 2 } },
      modified: { b: { c: 1 } },
      patch: { a: null, b: { d: null } },
    },
    {
      name: 'a changed list is sent whole',
      original: { l: [1, 2] },
      modified: { l: [1, 3] },
      patch: { l: [1, 3] },
    },
    {
      name: 'a changed type is sent whole',
      original: { a: { b: 1 } },
      modified: { a: 'x' },
      patch: { a: 'x' },
    },
  ];

  it.each(cases)('$name', ({ original, modified, patch }) => {
    const created = createMergePatch(original, modified);
    expect(created).toEqual(patch);
    expect(applyMergePatch(original, created)).toEqual(modified);
  });
});
