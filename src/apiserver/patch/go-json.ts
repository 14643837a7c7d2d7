import type { JsonValue } from './json-value.js';

// kube-apiserver decodes request bodies with Go's encoding/json, and its error texts reach clients
// verbatim ("invalid character 'x' looking for beginning of value"). JSON.parse accepts exactly
// the same documents, so it does the decoding; when it fails, a scan that follows Go's scanner
// finds the message Go would give.

/** A body that is not JSON, with Go's json.SyntaxError text. */
export class GoJsonSyntaxError extends Error {
  override readonly name = 'GoJsonSyntaxError';
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Decodes JSON like Go's json.Unmarshal into interface{}; throws GoJsonSyntaxError on bad input. */
export function decodeJsonLikeGo(body: string | Uint8Array): JsonValue {
  const text = typeof body === 'string' ? body : utf8.decode(body);
  // Go's scanner refuses nesting past 10,000 levels before decoding; JSON.parse would accept it
  // and leave a value too deep for the recursive walks that follow (a stack overflow, a 500).
  if (exceedsGoNestingDepth(text)) {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    throw new GoJsonSyntaxError(goJsonSyntaxError(bytes) ?? 'exceeded max depth');
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    throw new GoJsonSyntaxError(goJsonSyntaxError(bytes) ?? 'unexpected end of JSON input');
  }
}

/** Go's json.UnmarshalTypeError text for a JSON value that does not fit `goType`. */
export function goUnmarshalTypeError(value: JsonValue, goType: string): string {
  return `json: cannot unmarshal ${goJsonValueKind(value)} into Go value of type ${goType}`;
}

function goJsonValueKind(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

const maxNestingDepth = 10000;

/**
 * Whether `text` opens more than Go's 10,000 nested arrays or objects at some point (brackets
 * inside strings do not count). One linear pass over char codes, cheap enough to run before
 * every decode; the exact error then comes from goJsonSyntaxError.
 */
export function exceedsGoNestingDepth(text: string): boolean {
  // A text shorter than the limit cannot nest past it.
  if (text.length <= maxNestingDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxNestingDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

type Context = 'objectKey' | 'objectValue' | 'arrayValue';
type Step = (c: number) => string | undefined;

/** Runs Go's JSON scanner over `bytes`; returns its syntax error text, or undefined when valid. */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  const stack: Context[] = [];
  let endTop = false;
  let step: Step;

  const fail = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;
  const push = (c: number, context: Context, next: Step): string | undefined => {
    stack.push(context);
    step = next;
    return stack.length <= maxNestingDepth ? undefined : fail(c, 'exceeded max depth');
  };

  const endValue: Step = (c) => {
    const context = stack.at(-1);
    if (context === undefined) {
      endTop = true;
      step = endOfTop;
      return endOfTop(c);
    }
    if (isSpace(c)) {
      step = endValue;
      return undefined;
    }
    if (context === 'objectKey') {
      if (c !== 0x3a /* : */) return fail(c, 'after object key');
      stack[stack.length - 1] = 'objectValue';
      step = beginValue;
      return undefined;
    }
    if (context === 'objectValue') {
      if (c === 0x2c /* , */) {
        stack[stack.length - 1] = 'objectKey';
        step = beginString;
        return undefined;
      }
      if (c === 0x7d /* } */) return pop();
      return fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) {
      step = beginValue;
      return undefined;
    }
    if (c === 0x5d /* ] */) return pop();
    return fail(c, 'after array element');
  };
  const pop = (): undefined => {
    stack.pop();
    step = stack.length === 0 ? endOfTop : endValue;
    if (stack.length === 0) endTop = true;
    return undefined;
  };
  const endOfTop: Step = (c) => (isSpace(c) ? undefined : fail(c, 'after top-level value'));

  const beginValue: Step = (c) => {
    if (isSpace(c)) return undefined;
    switch (c) {
      case 0x7b /* { */:
        return push(c, 'objectKey', beginStringOrEmpty);
      case 0x5b /* [ */:
        return push(c, 'arrayValue', beginValueOrEmpty);
      case 0x22 /* " */:
        step = inString;
        return undefined;
      case 0x2d /* - */:
        step = negative;
        return undefined;
      case 0x30 /* 0 */:
        step = zero;
        return undefined;
      case 0x74 /* t */:
        step = literal('true', 1);
        return undefined;
      case 0x66 /* f */:
        step = literal('false', 1);
        return undefined;
      case 0x6e /* n */:
        step = literal('null', 1);
        return undefined;
    }
    if (isDigit(c)) {
      step = digits;
      return undefined;
    }
    return fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return undefined;
    if (c === 0x5d) return endValue(c);
    return beginValue(c);
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return undefined;
    if (c === 0x7d) {
      stack[stack.length - 1] = 'objectValue';
      return endValue(c);
    }
    return beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return undefined;
    if (c === 0x22) {
      step = inString;
      return undefined;
    }
    return fail(c, 'looking for beginning of object key string');
  };

  const inString: Step = (c) => {
    if (c === 0x22) {
      step = endValue;
      return undefined;
    }
    if (c === 0x5c /* \ */) {
      step = inEscape;
      return undefined;
    }
    return c < 0x20 ? fail(c, 'in string literal') : undefined;
  };
  const inEscape: Step = (c) => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) {
      step = inString;
      return undefined;
    }
    if (c === 0x75 /* u */) {
      step = hexDigit(4);
      return undefined;
    }
    return fail(c, 'in string escape code');
  };
  const hexDigit =
    (remaining: number): Step =>
    (c) => {
      if (!/[0-9a-fA-F]/.test(String.fromCharCode(c))) return fail(c, 'in \\u hexadecimal character escape');
      step = remaining > 1 ? hexDigit(remaining - 1) : inString;
      return undefined;
    };

  const negative: Step = (c) => {
    if (c === 0x30) {
      step = zero;
      return undefined;
    }
    if (isDigit(c)) {
      step = digits;
      return undefined;
    }
    return fail(c, 'in numeric literal');
  };
  const digits: Step = (c) => (isDigit(c) ? undefined : zero(c));
  const zero: Step = (c) => {
    if (c === 0x2e /* . */) {
      step = dot;
      return undefined;
    }
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return undefined;
    }
    return endValue(c);
  };
  const dot: Step = (c) => {
    if (!isDigit(c)) return fail(c, 'after decimal point in numeric literal');
    step = fraction;
    return undefined;
  };
  const fraction: Step = (c) => {
    if (isDigit(c)) return undefined;
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return undefined;
    }
    return endValue(c);
  };
  const exponent: Step = (c) => {
    if (c === 0x2b || c === 0x2d) {
      step = exponentSign;
      return undefined;
    }
    return exponentSign(c);
  };
  const exponentSign: Step = (c) => {
    if (!isDigit(c)) return fail(c, 'in exponent of numeric literal');
    step = exponentDigits;
    return undefined;
  };
  const exponentDigits: Step = (c) => (isDigit(c) ? undefined : endValue(c));

  const literal =
    (word: string, index: number): Step =>
    (c) => {
      const expected = word.charCodeAt(index);
      if (c !== expected) return fail(c, `in literal ${word} (expecting ${quoteChar(expected)})`);
      step = index + 1 < word.length ? literal(word, index + 1) : endValue;
      return undefined;
    };

  step = beginValue;
  for (const c of bytes) {
    const error = step(c);
    if (error !== undefined) return error;
  }
  // Like Go, end of input is a space: it completes a trailing number and exposes an unfinished literal.
  if (endTop) return undefined;
  const error = step(0x20);
  if (error !== undefined) return error;
  return endTop ? undefined : 'unexpected end of JSON input';
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const controlEscapes: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
};

/** Go's quoteChar: the byte as a rune, quoted like strconv.Quote but in single quotes. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  if (c === 0x5c) return "'\\\\'";
  const named = controlEscapes[c];
  if (named) return `'${named}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // U+0080–U+00A0 and the soft hyphen are not printable for strconv.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}
