import { describe, expect, it } from 'vitest';
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from '../../../src/apiserver/patch/index.js';

const genericInvalid = 'the server rejected our request due to an error in our request';

// RFC 6902 appendix A. Where the RFC expects an error, kube-apiserver answers 422 Invalid with a
// generic message; the json-patch library's text is in `detail`.
const rfcExamples: { name: string; doc: unknown; patch: unknown; result?: unknown; detail?: string }[] = [
  {
    name: 'A.1 adding an object member',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux' }],
    result: { baz: 'qux', foo: 'bar' },
  },
  {
    name: 'A.2 adding an array element',
    doc: { foo: ['bar', 'baz'] },
    patch: [{ op: 'add', path: '/foo/1', value: 'qux' }],
    result: { foo: ['bar', 'qux', 'baz'] },
  },
  {
    name: 'A.3 removing an object member',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'remove', path: '/baz' }],
    result: { foo: 'bar' },
  },
  {
    name: 'A.4 removing an array element',
    doc: { foo: ['bar', 'qux', 'baz'] },
    patch: [{ op: 'remove', path: '/foo/1' }],
    result: { foo: ['bar', 'baz'] },
  },
  {
    name: 'A.5 replacing a value',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'replace', path: '/baz', value: 'boo' }],
    result: { baz: 'boo', foo: 'bar' },
  },
  {
    name: 'A.6 moving a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    name: 'A.7 moving an array element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    result: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    name: 'A.8 testing a value: success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    result: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  {
    name: 'A.9 testing a value: error',
    doc: { baz: 'qux' },
    patch: [{ op: 'test', path: '/baz', value: 'bar' }],
    detail: 'testing value /baz failed: test failed',
  },
  {
    name: 'A.10 adding a nested member object',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    result: { foo: 'bar', child: { grandchild: {} } },
  },
  {
    name: 'A.11 ignoring unrecognized elements',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    result: { foo: 'bar', baz: 'qux' },
  },
  {
    name: 'A.12 adding to a nonexistent target',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
    detail: 'add operation does not apply: doc is missing path: "/baz/bat": missing value',
  },
  {
    name: 'A.14 ~ escape ordering',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: 10 }],
    result: { '/': 9, '~1': 10 },
  },
  {
    name: 'A.15 comparing strings and numbers',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: '10' }],
    detail: 'testing value /~01 failed: test failed',
  },
  {
    name: 'A.16 adding an array value',
    doc: { foo: ['bar'] },
    patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    result: { foo: ['bar', ['abc', 'def']] },
  },
];

// What kubectl patch --type=json users send, and the quirks of the library Kubernetes uses.
const kubernetesCases: typeof rfcExamples = [
  {
    name: 'add a label whose key needs ~1',
    doc: { metadata: { labels: { app: 'web' } } },
    patch: [{ op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' }],
    result: { metadata: { labels: { app: 'web', 'app.kubernetes.io/name': 'web' } } },
  },
  {
    name: 'append a container argument with -',
    doc: { spec: { containers: [{ name: 'a', args: ['--v=1'] }] } },
    patch: [{ op: 'add', path: '/spec/containers/0/args/-', value: '--x' }],
    result: { spec: { containers: [{ name: 'a', args: ['--v=1', '--x'] }] } },
  },
  {
    name: 'negative indices count from the end',
    doc: { a: [1, 2, 3] },
    patch: [
      { op: 'replace', path: '/a/-1', value: 30 },
      { op: 'add', path: '/a/-1', value: 'end' },
    ],
    result: { a: [1, 2, 30, 'end'] },
  },
  {
    name: 'replace of a missing object key adds it',
    doc: { spec: {} },
    patch: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
    result: { spec: { replicas: 3 } },
  },
  {
    name: 'copy from a missing key copies null',
    doc: { a: {} },
    patch: [{ op: 'copy', from: '/a/missing', path: '/b' }],
    result: { a: {}, b: null },
  },
  {
    name: 'test of a missing key against null passes',
    doc: { a: 1 },
    patch: [{ op: 'test', path: '/b', value: null }],
    result: { a: 1 },
  },
  {
    name: 'replace of the whole document',
    doc: { a: 1 },
    patch: [{ op: 'replace', path: '', value: { b: 2 } }],
    result: { b: 2 },
  },
  {
    name: 'remove of a missing key',
    doc: { metadata: { labels: {} } },
    patch: [{ op: 'remove', path: '/metadata/labels/app' }],
    detail:
      "error in remove for path: '/metadata/labels/app': Unable to remove nonexistent key: app: missing value",
  },
  {
    name: 'replace past the end of an array',
    doc: { a: [1] },
    patch: [{ op: 'replace', path: '/a/5', value: 1 }],
    detail: 'replace operation does not apply: doc is missing key: /a/5: missing value',
  },
  {
    name: 'add past the end of an array',
    doc: { a: [1] },
    patch: [{ op: 'add', path: '/a/3', value: 1 }],
    detail: "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced",
  },
  {
    name: 'add at an index that is not a number',
    doc: { a: [1] },
    patch: [{ op: 'add', path: '/a/x', value: 1 }],
    detail:
      "error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
  },
  {
    name: 'remove at an index that is not a number',
    doc: { a: [1] },
    patch: [{ op: 'remove', path: '/a/x' }],
    detail: 'error in remove for path: \'/a/x\': strconv.Atoi: parsing "x": invalid syntax',
  },
  {
    name: 'move from a missing path',
    doc: { a: 1 },
    patch: [{ op: 'move', from: '/x/y', path: '/b' }],
    detail: 'move operation does not apply: doc is missing from path: /x/y: missing value',
  },
  {
    name: 'copy to a missing destination',
    doc: { a: 1 },
    patch: [{ op: 'copy', from: '/a', path: '/x/y' }],
    detail: 'copy operation does not apply: doc is missing destination path: /x/y: missing value',
  },
  {
    name: 'test through a missing path',
    doc: { a: 1 },
    patch: [{ op: 'test', path: '/x/y', value: 1 }],
    detail: 'test operation does not apply: is missing path: /x/y: missing value',
  },
  { name: 'an unknown op', doc: {}, patch: [{ op: 'merge', path: '/a' }], detail: 'Unexpected kind: merge' },
  { name: 'a missing op', doc: {}, patch: [{ path: '/a' }], detail: 'Unexpected kind: unknown' },
  {
    name: 'add without a path',
    doc: {},
    patch: [{ op: 'add', value: 1 }],
    detail: 'add operation failed to decode path: missing value',
  },
  {
    name: 'replace with a path that is not a string',
    doc: {},
    patch: [{ op: 'replace', path: 5, value: 1 }],
    detail:
      'replace operation failed to decode path: json: cannot unmarshal number into Go value of type string',
  },
  {
    name: 'move without from',
    doc: {},
    patch: [{ op: 'move', path: '/a' }],
    detail: 'move operation failed to decode from: operation, missing from field: missing value',
  },
  {
    name: 'a failing operation discards the earlier ones',
    doc: { a: 1 },
    patch: [
      { op: 'add', path: '/b', value: 2 },
      { op: 'test', path: '/a', value: 2 },
    ],
    detail: 'testing value /a failed: test failed',
  },
];

describe('applyJsonPatch', () => {
  it.each([...rfcExamples, ...kubernetesCases])('$name', ({ doc, patch, result, detail }) => {
    const before = structuredClone(doc);
    if (detail === undefined) {
      expect(applyJsonPatch(doc, patch)).toEqual(result);
    } else {
      expect(() => applyJsonPatch(doc, patch)).toThrow(
        expect.objectContaining({ code: 422, reason: 'Invalid', message: genericInvalid, detail }),
      );
    }
    expect(doc).toEqual(before);
  });

  it.each([
    [{ op: 'add' }, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['[]', 'json: cannot unmarshal string into Go value of type jsonpatch.Patch'],
    [[1], 'json: cannot unmarshal number into Go value of type jsonpatch.Operation'],
  ])('rejects a patch that is not a list of operations: %j', (patch, message) => {
    expect(() => applyJsonPatch({}, patch)).toThrow(
      expect.objectContaining({ code: 400, reason: 'BadRequest', message }),
    );
  });

  it('treats a null patch as no operations', () => {
    expect(applyJsonPatch({ a: 1 }, null)).toEqual({ a: 1 });
  });

  it(`accepts ${MAX_JSON_PATCH_OPERATIONS} operations and refuses one more with 413`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({
      op: 'test',
      path: '/a',
      value: 1,
    }));
    expect(applyJsonPatch({ a: 1 }, ops)).toEqual({ a: 1 });
    expect(() => applyJsonPatch({ a: 1 }, [...ops, ops[0]])).toThrow(
      expect.objectContaining({
        code: 413,
        reason: 'RequestEntityTooLarge',
        message:
          'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      }),
    );
  });

  it('limits the bytes copy operations add to 3 MiB', () => {
    const doc = { big: 'x'.repeat(1024 * 1024) };
    const copies = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/big', path: `/c${i}` }));
    expect(Object.keys(applyJsonPatch(doc, copies(2)) as object)).toHaveLength(3);
    expect(() => applyJsonPatch(doc, copies(3))).toThrow(
      expect.objectContaining({
        code: 422,
        detail:
          'Unable to complete the copy, the accumulated size increase of copy is 3145734, exceeding the limit 3145728',
      }),
    );
  });
});
