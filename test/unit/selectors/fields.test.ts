import { describe, expect, it } from 'vitest';
import {
  escapeFieldValue,
  FieldSelector,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
} from '../../../src/api/selectors/index.js';
import { selectorErrorMessage } from './messages.js';

describe('parseFieldSelector: accepted input and canonical form', () => {
  it.each([
    ['', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a=b'],
    ['a!=b', 'a!=b'],
    ['a=', 'a='],
    ['a!=', 'a!='],
    ['a=b,c=d', 'a=b,c=d'],
    // Terms are sorted by their raw text.
    ['c=d,a=b', 'a=b,c=d'],
    ['a=b,a!=b', 'a!=b,a=b'],
    ['a=b,a==b', 'a=b,a=b'],
    ['a=b,a=c', 'a=b,a=c'],
    // Empty terms are skipped, and so are terms with an empty field and value.
    [',', ''],
    [',,a=b,', 'a=b'],
    ['a=b,,c=d', 'a=b,c=d'],
    ['=', ''],
    ['!=', ''],
    ['==', ''],
    ['=,a=b', 'a=b'],
    ['=x', '=x'],
    ['!=x', '!=x'],
    // No trimming: spaces belong to the field and the value.
    ['a = b', 'a = b'],
    [' a=b', ' a=b'],
    // The first operator splits the term.
    ['a!b=c', 'a!b=c'],
    ['a=b\\,c', 'a=b\\,c'],
    ['a=b\\=c', 'a=b\\=c'],
    ['a=b\\\\c', 'a=b\\\\c'],
    ['a=\\,\\=\\\\', 'a=\\,\\=\\\\'],
    ['a\\,b=c', 'a\\,b=c'],
    ['metadata.name=foo,status.phase!=Running', 'metadata.name=foo,status.phase!=Running'],
    ['metadata.namespace==default', 'metadata.namespace=default'],
    ['spec.nodeName=', 'spec.nodeName='],
    ['a=é', 'a=é'],
  ])('%j → %j', (input, canonical) => {
    expect(parseFieldSelector(input).toString()).toBe(canonical);
    expect(parseFieldSelector(canonical).toString()).toBe(canonical);
  });

  it('gives the terms with unescaped values and == read as =', () => {
    expect(parseFieldSelector('status.phase!=Running,metadata.name==a\\,b').requirements()).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
    // The field part is taken literally, escapes included.
    expect(parseFieldSelector('a\\,b=c').requirements()).toEqual([
      { field: 'a\\,b', operator: '=', value: 'c' },
    ]);
  });
});

describe('parseFieldSelector: refused input and Kubernetes messages', () => {
  it.each([
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['a,b=c', "invalid selector: 'a,b=c'; can't understand 'a'"],
    ['b=c,a', "invalid selector: 'b=c,a'; can't understand 'a'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['!', "invalid selector: '!'; can't understand '!'"],
    ['a\\', "invalid selector: 'a\\'; can't understand 'a\\'"],
    // Go prints the unescaped character as its number ('=' is 61).
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b!=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
    ['a===b', 'invalid field selector: unescaped character in value: 61'],
    ['a\\=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\ ', 'invalid field selector: invalid escape sequence: \\ '],
    ['a=\\é', 'invalid field selector: invalid escape sequence: \\é'],
    // Terms are checked in sorted order: "a=b=c" comes before "b" and "x=1".
    ['x=1,a=b=c,b', 'invalid field selector: unescaped character in value: 61'],
  ])('%j', (input, message) => {
    expect(selectorErrorMessage(() => parseFieldSelector(input))).toBe(message);
  });
});

describe('field value escaping', () => {
  it.each([
    ['', ''],
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['\\,=', '\\\\\\,\\='],
  ])('%j ⇄ %j', (value, escaped) => {
    expect(escapeFieldValue(value)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(value);
  });

  it('round-trips any value through a selector', () => {
    for (const value of ['x=y,z', '\\', ',,', '==', 'a b', 'é\\,']) {
      const selector = parseFieldSelector(`metadata.name=${escapeFieldValue(value)}`);
      expect(selector.requiresExactMatch('metadata.name')).toBe(value);
      expect(parseFieldSelector(selector.toString()).requiresExactMatch('metadata.name')).toBe(value);
    }
  });

  it('refuses what Kubernetes refuses', () => {
    expect(selectorErrorMessage(() => unescapeFieldValue('a,b'))).toBe(
      'invalid field selector: unescaped character in value: 44',
    );
    expect(selectorErrorMessage(() => unescapeFieldValue('a\\n'))).toBe(
      'invalid field selector: invalid escape sequence: \\n',
    );
  });
});

describe('FieldSelector', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['a=b', { a: 'b' }, true],
    ['a=b', {}, false],
    // A missing field reads as the empty string.
    ['a=', {}, true],
    ['a=', { a: '' }, true],
    ['a!=', {}, false],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['a!=b', { a: 'c' }, true],
    ['a=b\\,c', { a: 'b,c' }, true],
    ['a=b\\,c', { a: 'b\\,c' }, false],
    ['a=\\\\', { a: '\\' }, true],
    ['a=b,c!=d', { a: 'b', c: 'e' }, true],
    ['a=b,c!=d', { a: 'b', c: 'd' }, false],
    ['a=b,a=c', { a: 'b' }, false],
    ['', {}, true],
    ['=', {}, true],
  ])('%j matches %j → %j', (input, fields, expected) => {
    expect(parseFieldSelector(input).matches((field) => fields[field])).toBe(expected);
  });

  it.each([
    ['a=b', 'a', 'b'],
    ['a==b', 'a', 'b'],
    ['a=', 'a', ''],
    ['a!=b', 'a', undefined],
    ['a=b', 'b', undefined],
    ['a=b,a=c', 'a', 'b'],
    ['a!=b,a=c', 'a', 'c'],
  ])('requiresExactMatch: %j pins %j to %j', (input, field, value) => {
    expect(parseFieldSelector(input).requiresExactMatch(field)).toBe(value);
  });

  it('tells empty selectors from the nothing selector', () => {
    expect(parseFieldSelector('').isEmpty()).toBe(true);
    expect(parseFieldSelector('=').isEmpty()).toBe(true);
    expect(parseFieldSelector('a=').isEmpty()).toBe(false);
    expect(FieldSelector.everything().matches(() => 'x')).toBe(true);
    expect(FieldSelector.nothing().isEmpty()).toBe(false);
    expect(FieldSelector.nothing().matches(() => 'x')).toBe(false);
    expect(FieldSelector.nothing().toString()).toBe('');
    expect(FieldSelector.nothing().requirements()).toEqual([]);
  });

  it('transforms terms, dropping those that become empty and passing errors on', () => {
    const selector = parseFieldSelector('spec.host=n1,status.phase!=Failed,metadata.name=x');
    const renamed = selector.transform((field, value) =>
      field === 'spec.host'
        ? { field: 'spec.nodeName', value }
        : field === 'metadata.name'
          ? { field: '', value: '' }
          : { field, value },
    );
    expect(renamed.toString()).toBe('spec.nodeName=n1,status.phase!=Failed');
    expect(selector.toString()).toBe('metadata.name=x,spec.host=n1,status.phase!=Failed');
    expect(() =>
      selector.transform((field) => {
        throw new Error(`field label not supported: ${field}`);
      }),
    ).toThrow('field label not supported: metadata.name');
    expect(selector.transform(() => ({ field: '', value: '' })).isEmpty()).toBe(true);
  });

  it('builds from a set, escaping values in its text', () => {
    const selector = fieldSelectorFromSet({ 'metadata.name': 'a,b', 'metadata.namespace': 'default' });
    expect(selector.toString()).toBe('metadata.name=a\\,b,metadata.namespace=default');
    expect(
      selector.matches((field) => ({ 'metadata.name': 'a,b', 'metadata.namespace': 'default' })[field]),
    ).toBe(true);
    expect(fieldSelectorFromSet(undefined).isEmpty()).toBe(true);
  });
});
