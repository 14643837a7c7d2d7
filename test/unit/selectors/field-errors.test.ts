import { describe, expect, it } from 'vitest';
import { goQuote, goStringSlice } from '../../../src/api/selectors/go-text.js';
import {
  aggregateMessages,
  type FieldError,
  fieldErrorBody,
  fieldErrorMessage,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isQualifiedName,
  isValidLabelValue,
} from '../../../src/api/selectors/index.js';
import { NAME_PART_RULE } from './messages.js';

describe('goQuote (Go %q)', () => {
  it.each([
    ['', '""'],
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\x00\x07\b\f\n\r\t\v\x1b\x7f', '"\\x00\\a\\b\\f\\n\\r\\t\\v\\x1b\\x7f"'],
    ['é', '"é"'],
    ['日本', '"日本"'],
    ['😀', '"😀"'],
    ["'", `"'"`],
    ['\u00a0', '"\\u00a0"'],
    ['\u00ad', '"\\u00ad"'],
    ['\u200b', '"\\u200b"'],
    ['\u2028', '"\\u2028"'],
    ['\u{e0001}', '"\\U000e0001"'],
  ])('%j → %s', (text, quoted) => {
    expect(goQuote(text)).toBe(quoted);
  });

  it('prints string slices as Go %#v does', () => {
    expect(goStringSlice([])).toBe('[]string{}');
    expect(goStringSlice([], true)).toBe('[]string(nil)');
    expect(goStringSlice(['a', 'b"c'])).toBe('[]string{"a", "b\\"c"}');
  });
});

describe('field errors', () => {
  it.each<[FieldError, string]>([
    [fieldInvalid('spec.x', 'v', 'bad'), 'spec.x: Invalid value: "v": bad'],
    [fieldInvalid('spec.x', 3, 'bad'), 'spec.x: Invalid value: 3: bad'],
    [fieldInvalid('spec.x', true, ''), 'spec.x: Invalid value: true'],
    [fieldInvalid('spec.x', null, 'bad'), 'spec.x: Invalid value: null: bad'],
    [fieldInvalid('spec.x', ['a'], 'bad'), 'spec.x: Invalid value: []string{"a"}: bad'],
    [fieldRequired('spec.x', 'must be given'), 'spec.x: Required value: must be given'],
    [fieldRequired('spec.x', ''), 'spec.x: Required value'],
    [fieldForbidden('spec.x', 'not now'), 'spec.x: Forbidden: not now'],
    [
      fieldNotSupported('spec.op', 'Gt', ['In', 'NotIn']),
      'spec.op: Unsupported value: "Gt": supported values: "In", "NotIn"',
    ],
    [fieldNotSupported('spec.op', 'Gt', []), 'spec.op: Unsupported value: "Gt"'],
  ])('%j', (error, message) => {
    expect(fieldErrorMessage(error)).toBe(message);
    expect(fieldErrorBody(error)).toBe(message.slice(error.field.length + 2));
  });

  it('aggregates as Go does: one message bare, several bracketed, duplicates once', () => {
    expect(aggregateMessages(['a'])).toBe('a');
    expect(aggregateMessages(['a', 'a'])).toBe('a');
    expect(aggregateMessages(['a', 'b', 'a'])).toBe('[a, b]');
  });
});

describe('name checks', () => {
  it.each<[string, string[]]>([
    ['a', []],
    ['A.b-C_9', []],
    ['example.com/A', []],
    ['a'.repeat(63), []],
    ['', ['name part must be non-empty', NAME_PART_RULE]],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
    ['/a', ['prefix part must be non-empty']],
  ])('isQualifiedName(%j)', (name, problems) => {
    expect(isQualifiedName(name)).toEqual(problems);
  });

  it.each<[string, number]>([
    ['', 0],
    ['a', 0],
    ['a'.repeat(63), 0],
    ['a'.repeat(64), 1],
    ['-a', 1],
    [`${'a'.repeat(64)}-`, 2],
  ])('isValidLabelValue(%j) finds %i problems', (value, count) => {
    expect(isValidLabelValue(value)).toHaveLength(count);
  });
});
