// Go's regexp (RE2 syntax) on JavaScript's RegExp: CRD `pattern`s are Go regular expressions
// (kube-openapi compiles them with regexp.Compile), so they are translated here, and what RE2
// refuses is refused with Go's error texts ("error parsing regexp: ...").
//
// Differences handled: RE2 has no lookaround or backreferences (refused, as Go does); `\A`, `\z`,
// `\Q...\E`, `(?P<name>...)`, `\pL`, POSIX classes `[[:alpha:]]`, `\x{...}`, `\a` are translated;
// Go's `\s` is ASCII whitespace only; Go's `.` stops only at \n; a `{` that is not a repeat is a
// literal. Remaining differences: flag groups such as `(?i)` apply to the whole pattern, since
// Node 20's RegExp has no scoped modifiers (Go scopes them to the group); `(?U)` (ungreedy) is
// refused.

const MAX_REPEAT = 1000;

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

// Characters JavaScript's unicode mode lets (and needs) be escaped; in a class also '-'.
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const GO_SPACE = '\\t\\n\\f\\r ';
// Stands for `.` until the flags are known: Go's `.` is any character but \n (any at all with
// (?s)); JavaScript's also stops at \r, U+2028 and U+2029.
const ANY_CHAR = '\uE000';

export class GoRegexpError extends Error {}

function fail(code: string, expr: string): never {
  throw new GoRegexpError(`error parsing regexp: ${code}: \`${expr}\``);
}

interface Translation {
  source: string;
  flags: Set<string>;
}

/** The escape after a backslash at `pattern[i]`, as JavaScript text; returns [text, next index]. */
function translateEscape(pattern: string, i: number, inClass: boolean): [string, number] {
  const c = pattern[i + 1];
  if (c === undefined) fail('trailing backslash at end of expression', '');
  const next = i + 2;
  if (/[1-9]/.test(c)) fail('invalid escape sequence', `\\${c}`);
  switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 'n':
    case 't':
    case 'r':
    case 'f':
    case 'v':
      return [`\\${c}`, next];
    case 'b':
    case 'B':
      if (inClass) fail('invalid escape sequence', `\\${c}`);
      return [`\\${c}`, next];
    case 's':
      return [inClass ? GO_SPACE : `[${GO_SPACE}]`, next];
    case 'S':
      // Within a class JavaScript's \S stands in (it differs only on non-ASCII spaces).
      return [inClass ? '\\S' : `[^${GO_SPACE}]`, next];
    case 'a':
      return ['\\x07', next];
    case 'A':
      if (inClass) fail('invalid escape sequence', '\\A');
      return ['(?<![\\s\\S])', next];
    case 'z':
      if (inClass) fail('invalid escape sequence', '\\z');
      return ['(?![\\s\\S])', next];
    case 'x': {
      const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(next));
      if (braced) return [`\\u{${braced[1]}}`, next + braced[0].length];
      const plain = /^[0-9A-Fa-f]{2}/.exec(pattern.slice(next));
      if (!plain) fail('invalid escape sequence', pattern.slice(i, next + 2));
      return [`\\x${plain[0]}`, next + 2];
    }
    case 'p':
    case 'P': {
      const braced = /^\{(\^?)([A-Za-z_]+)\}/.exec(pattern.slice(next));
      let name: string;
      let negate = c === 'P';
      let end: number;
      if (braced) {
        name = braced[2]!;
        if (braced[1] === '^') negate = !negate;
        end = next + braced[0].length;
      } else {
        const letter = pattern[next];
        if (letter === undefined || !/[A-Za-z]/.test(letter)) fail('invalid character class range', `\\${c}`);
        name = letter;
        end = next + 1;
      }
      const property = name === 'Any' ? 'Any' : name.length <= 2 ? name : `Script=${name}`;
      const text =
        property === 'Any' ? (negate ? '[^\\s\\S]' : '[\\s\\S]') : `\\${negate ? 'P' : 'p'}{${property}}`;
      return [text, end];
    }
    default:
      if (/[A-Za-z0-9]/.test(c)) fail('invalid escape sequence', `\\${c}`);
      // Go lets any punctuation be escaped; JavaScript's unicode mode only its syntax characters.
      return [escapeLiteral(c, inClass), next];
  }
}

/** A character meant literally, written for JavaScript's unicode mode. */
function escapeLiteral(char: string, inClass: boolean): string {
  if (char === ANY_CHAR) return '\\uE000';
  if (inClass) return '\\]-^['.includes(char) ? `\\${char}` : char;
  return JS_SYNTAX.has(char) ? `\\${char}` : char;
}

function translateClass(pattern: string, start: number): [string, number] {
  let i = start + 1;
  let out = '[';
  if (pattern[i] === '^') {
    out += '^';
    i++;
  }
  let first = true;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === ']' && !first) return [`${out}]`, i + 1];
    first = false;
    if (c === '[' && pattern[i + 1] === ':') {
      const match = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(i));
      if (match) {
        const ranges = POSIX_CLASSES[match[2]!];
        if (ranges === undefined) fail('invalid character class range', match[0]);
        if (match[1] === '^') fail('invalid character class range', match[0]);
        out += ranges;
        i += match[0].length;
        continue;
      }
    }
    if (c === '\\') {
      const [text, next] = translateEscape(pattern, i, true);
      out += text;
      i = next;
      continue;
    }
    out += c === '-' ? '-' : escapeLiteral(c, true);
    i++;
  }
  return fail('missing closing ]', pattern.slice(start));
}

function translate(pattern: string): Translation {
  const flags = new Set<string>();
  let out = '';
  let depth = 0;
  let i = 0;
  // Whether the previous item can take a repetition operator.
  let repeatable = false;
  let lastWasRepeat = false;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const literal = pattern.slice(i + 2, end < 0 ? undefined : end);
        out += [...literal].map((char) => escapeLiteral(char, false)).join('');
        i = end < 0 ? pattern.length : end + 2;
        repeatable = literal.length > 0;
        lastWasRepeat = false;
        continue;
      }
      const [text, next] = translateEscape(pattern, i, false);
      out += text;
      i = next;
      repeatable = true;
      lastWasRepeat = false;
      continue;
    }
    if (c === '[') {
      const [text, next] = translateClass(pattern, i);
      out += text;
      i = next;
      repeatable = true;
      lastWasRepeat = false;
      continue;
    }
    if (c === '(') {
      if (pattern[i + 1] === '?') {
        const rest = pattern.slice(i + 2);
        const named = /^P?<([A-Za-z0-9_]+)>/.exec(rest);
        if (named) {
          out += `(?<${named[1]}>`;
          i += 2 + named[0].length;
        } else if (rest.startsWith(':')) {
          out += '(?:';
          i += 3;
        } else {
          const flagGroup = /^([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
          if (!flagGroup || (flagGroup[1] === '' && (flagGroup[2] ?? '') === '')) {
            fail('invalid or unsupported Perl syntax', pattern.slice(i, i + 3));
          }
          for (const flag of flagGroup[1]!) {
            if (flag === 'U')
              fail('invalid or unsupported Perl syntax', pattern.slice(i, i + 3 + flagGroup[0].length - 1));
            flags.add(flag);
          }
          i += 2 + flagGroup[0].length;
          if (flagGroup[3] === ')') {
            repeatable = false;
            lastWasRepeat = false;
            continue;
          }
          out += '(?:';
        }
      } else {
        out += '(';
        i++;
      }
      depth++;
      repeatable = false;
      lastWasRepeat = false;
      continue;
    }
    if (c === ')') {
      if (depth === 0) fail('unexpected )', pattern);
      depth--;
      out += ')';
      i++;
      repeatable = true;
      lastWasRepeat = false;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      let operator = c;
      if (c === '{') {
        const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
        if (!counted) {
          out += '\\{';
          i++;
          repeatable = true;
          lastWasRepeat = false;
          continue;
        }
        const low = Number(counted[1]);
        const high = counted[3] === undefined || counted[3] === '' ? low : Number(counted[3]);
        if (
          low > MAX_REPEAT ||
          high > MAX_REPEAT ||
          (counted[3] !== undefined && counted[3] !== '' && high < low)
        ) {
          fail('invalid repeat count', counted[0]);
        }
        operator = counted[0];
      }
      if (lastWasRepeat && pattern[i] !== '?')
        fail('invalid nested repetition operator', `${out.slice(-1)}${operator}`);
      if (!repeatable && !lastWasRepeat) fail('missing argument to repetition operator', operator);
      let text = operator;
      i += operator.length;
      if (lastWasRepeat) {
        // A lazy marker after a repeat (`*?`): allowed once.
        out += '?';
        lastWasRepeat = false;
        repeatable = false;
        continue;
      }
      out += text;
      text = '';
      lastWasRepeat = true;
      repeatable = false;
      continue;
    }
    if (c === '}' || c === ']') {
      out += `\\${c}`;
    } else if (c === '|') {
      out += '|';
      i++;
      repeatable = false;
      lastWasRepeat = false;
      continue;
    } else {
      out += c === '/' ? '\\/' : c === '.' ? ANY_CHAR : c === ANY_CHAR ? '\\uE000' : c;
    }
    i++;
    repeatable = true;
    lastWasRepeat = false;
  }
  if (depth > 0) fail('missing closing )', pattern);
  return { source: out, flags };
}

/** Compiles a Go regular expression; throws GoRegexpError with Go's message when Go would refuse it. */
export function compileGoRegexp(pattern: string): RegExp {
  const { source, flags } = translate(pattern);
  let jsFlags = 'u';
  if (flags.has('i')) jsFlags += 'i';
  if (flags.has('m')) jsFlags += 'm';
  const withDots = source.replaceAll(ANY_CHAR, flags.has('s') ? '[\\s\\S]' : '[^\\n]');
  try {
    return new RegExp(withDots, jsFlags);
  } catch {
    // A construct the translation does not cover: refused rather than matched differently.
    return fail('invalid or unsupported Perl syntax', pattern);
  }
}

/** The Go error text for a pattern Go refuses, or undefined when it compiles. */
export function goRegexpError(pattern: string): string | undefined {
  try {
    compileGoRegexp(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof GoRegexpError) return error.message;
    throw error;
  }
}
