// Go's formatting and ordering of strings, so that messages and canonical forms come out
// byte-for-byte as kube-apiserver writes them.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
  11: '\\v',
};

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

/** Go's `strconv.Quote` (what `%q` prints): double-quoted, with Go escapes for what is not printable. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') {
      out += `\\${char}`;
    } else if (code === 0x20 || (code > 0x20 && code < 0x7f) || (code > 0x7f && PRINTABLE.test(char))) {
      out += char;
    } else if (SHORT_ESCAPES[code] !== undefined) {
      out += SHORT_ESCAPES[code];
    } else if (code < 0x20 || code === 0x7f) {
      out += `\\x${hex(code, 2)}`;
    } else if (code < 0x10000) {
      out += `\\u${hex(code, 4)}`;
    } else {
      out += `\\U${hex(code, 8)}`;
    }
  }
  return `${out}"`;
}

/** Go's `%#v` of a `[]string`; `nilWhenEmpty` says an empty list stands for a nil slice. */
export function goStringSlice(values: readonly string[], nilWhenEmpty = false): string {
  if (values.length === 0) return nilWhenEmpty ? '[]string(nil)' : '[]string{}';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/**
 * Orders strings as Go does (by UTF-8 bytes, which is code-point order). UTF-16 order differs
 * only between astral characters and U+E000–U+FFFF.
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xAstral = isSurrogate(x);
    if (xAstral !== isSurrogate(y)) return xAstral ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Length in UTF-8 bytes, which is what Go's `len` measures in the validation limits. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else {
      bytes += 3;
    }
  }
  return bytes;
}
