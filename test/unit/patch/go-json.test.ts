import { describe, expect, it } from 'vitest';
import {
  decodeJsonLikeGo,
  exceedsGoNestingDepth,
  goJsonSyntaxError,
} from '../../../src/apiserver/patch/go-json.js';

// Texts of Go's encoding/json (checked against Go 1.19's json.Unmarshal).
const syntaxErrors: [string, string][] = [
  ['', 'unexpected end of JSON input'],
  ['{', 'unexpected end of JSON input'],
  ['x', "invalid character 'x' looking for beginning of value"],
  ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b"}', "invalid character '\"' after object key:value pair"],
  ['[1 2]', "invalid character '2' after array element"],
  ['[1,]', "invalid character ']' looking for beginning of value"],
  ['1 2', "invalid character '2' after top-level value"],
  ['tru', "invalid character ' ' in literal true (expecting 'e')"],
  ['nul', "invalid character ' ' in literal null (expecting 'l')"],
  ['falsy', "invalid character 'y' in literal false (expecting 'e')"],
  ['-a', "invalid character 'a' in numeric literal"],
  ['1.', "invalid character ' ' after decimal point in numeric literal"],
  ['1e+', "invalid character ' ' in exponent of numeric literal"],
  ['01', "invalid character '1' after top-level value"],
  ['"a\\qb"', "invalid character 'q' in string escape code"],
  ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
  ['"a\nb"', "invalid character '\\n' in string literal"],
  ["'a'", "invalid character '\\'' looking for beginning of value"],
  ['é', "invalid character 'Ã' looking for beginning of value"],
  ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
  ['\u0001', "invalid character '\\x01' looking for beginning of value"],
];

describe('Go JSON decoding errors', () => {
  it.each(syntaxErrors)('%j', (input, message) => {
    expect(goJsonSyntaxError(Buffer.from(input, 'utf8'))).toBe(message);
    expect(() => decodeJsonLikeGo(input)).toThrow(message);
  });

  it('accepts what Go accepts', () => {
    for (const input of ['{}', ' [1, -0.5e3, "\\u00e9", true, null] ', '"x"', '0']) {
      expect(goJsonSyntaxError(Buffer.from(input))).toBeUndefined();
      expect(decodeJsonLikeGo(Buffer.from(input))).toEqual(JSON.parse(input));
    }
  });
});

describe('nesting depth', () => {
  it('refuses JSON nested past 10,000 levels with Go scanner text, counting no brackets in strings', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(exceedsGoNestingDepth(deep(10_000))).toBe(false);
    expect(exceedsGoNestingDepth(deep(10_001))).toBe(true);
    expect(exceedsGoNestingDepth(`"${'['.repeat(30_000)}"`)).toBe(false);
    expect(exceedsGoNestingDepth(`["\\"${'{'.repeat(30_000)}"]`)).toBe(false);
    expect(() => decodeJsonLikeGo(`{"a":${deep(10_001)}}`)).toThrow(
      "invalid character '[' exceeded max depth",
    );
    expect(decodeJsonLikeGo(deep(10_000))).toBeInstanceOf(Array);
  });
});
