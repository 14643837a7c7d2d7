// Go RE2 patterns on JavaScript: translation of Go-only syntax, and Go's refusals.
import { describe, expect, it } from 'vitest';
import {
  compileGoRegexp,
  goRegexpError,
} from '../../../../../src/apiserver/apiextensions/schema/go-regexp.js';

describe('compileGoRegexp', () => {
  const matches: [string, string, boolean][] = [
    ['(?i)^abc$', 'ABC', true],
    ['^\\d+$', '١٢', false],
    ['^[[:alpha:]]+$', 'abcXYZ', true],
    ['^[[:digit:]]+$', 'abc', false],
    ['^\\Qa.b\\E$', 'a.b', true],
    ['^\\Qa.b\\E$', 'axb', false],
    ['^a{2}$', 'aa', true],
    ['^x{$', 'x{', true],
    ['^\\pL+$', 'äbc', true],
    ['^(?P<word>[a-z]+)$', 'abc', true],
    ['\\Aab\\z', 'ab', true],
    ['\\Aab\\z', 'ab\n', false],
    ['^\\s$', '\u00a0', false],
    ['^a\\-b$', 'a-b', true],
    ['^\\x{41}$', 'A', true],
    ['^[^\\s\\S]$', 'a', false],
    ['^a.b$', 'a\rb', true],
    ['^a.b$', 'a\nb', false],
    ['(?s)^a.b$', 'a\nb', true],
    ['^[\uE000]$', '\uE000', true],
    // Patterns common in operator CRDs: Kubernetes quantities, durations, DNS names.
    [
      '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
      '500Mi',
      true,
    ],
    ['^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$', '1h30m', true],
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', 'my-app.example', true],
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', 'My_App', false],
  ];
  it.each(matches)('%s on %j matches: %s', (pattern, text, expected) => {
    expect(compileGoRegexp(pattern).test(text)).toBe(expected);
  });

  const refusals: [string, string][] = [
    ['(?!x)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?!`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ['(abc', 'error parsing regexp: missing closing ): `(abc`'],
    ['abc)', 'error parsing regexp: unexpected ): `abc)`'],
    ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['+', 'error parsing regexp: missing argument to repetition operator: `+`'],
    ['[a-', 'error parsing regexp: missing closing ]: `[a-`'],
  ];
  it.each(refusals)('refuses %s', (pattern, message) => {
    expect(goRegexpError(pattern)).toBe(message);
  });
});
