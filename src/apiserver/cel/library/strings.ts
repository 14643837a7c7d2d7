// CEL's strings extension (cel-go ext/strings.go, version 2 as Kubernetes 1.29+ declares it)
// where the core library lacks it: charAt, replace, format, strings.quote. (indexOf, lastIndexOf, lowerAscii, upperAscii, split,
// substring, trim and join come with the core library.)
import type { Environment } from '@marcbachmann/cel-js';

/** The `strings` namespace of `strings.quote(...)`. */
class StringsNamespace {}

function replace(text: string, from: string, to: string, limit: number): string {
  if (limit < 0) return text.split(from).join(to);
  let result = text;
  let position = 0;
  for (let count = 0; count < limit; count++) {
    const at = result.indexOf(from, position);
    if (at < 0) break;
    result = result.slice(0, at) + to + result.slice(at + from.length);
    position = at + to.length + (from === '' ? 1 : 0);
  }
  return result;
}

function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\x07':
        out += '\\a';
        break;
      default:
        out += ch;
    }
  }
  return `${out}"`;
}

/** A value as format()'s `%s` prints it. */
function formatString(value: unknown, nested = false): string {
  if (typeof value === 'string') return nested ? quote(value) : value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number')
    return Number.isNaN(value)
      ? 'NaN'
      : Number.isFinite(value)
        ? String(value)
        : value > 0
          ? 'Infinity'
          : '-Infinity';
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
  if (Array.isArray(value)) return `[${value.map((v) => formatString(v, true)).join(', ')}]`;
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (value instanceof Map || proto === Object.prototype || proto === null) {
    const pairs = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
    const entries = pairs.map(([k, v]) => [formatString(k, true), formatString(v, true)] as const);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
  }
  const seconds = (value as { seconds?: unknown }).seconds;
  if (typeof seconds === 'bigint') {
    const nanos = Number((value as { nanos?: number }).nanos ?? 0);
    return `${seconds}${nanos ? `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}` : ''}s`;
  }
  return String(value);
}

function integerOf(value: unknown, clause: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean' && clause === 'binary') return value ? 1n : 0n;
  if (typeof value === 'object' && value !== null && 'valueOf' in value) {
    const primitive = (value as { valueOf(): unknown }).valueOf();
    if (typeof primitive === 'bigint') return primitive;
  }
  throw new Error(`${clause} clause can only be used on integers, was given ${typeName(value)}`);
}

function typeName(value: unknown): string {
  if (typeof value === 'number') return 'double';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof Uint8Array) return 'bytes';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map) return 'map';
  return 'dyn';
}

function numberOf(value: unknown, clause: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw new Error(`${clause} clause can only be used on doubles, was given ${typeName(value)}`);
}

/** cel-go's string.format: %s %d %f %e %b %o %x %X and %%, with an optional precision. */
function format(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    const clause = /^(?:\.(\d+))?([a-zA-Z])/.exec(template.slice(i + 1));
    if (clause === null) throw new Error('unexpected end of format string');
    i += clause[0].length;
    const precision = clause[1] === undefined ? 6 : Number(clause[1]);
    if (next >= args.length) throw new Error(`index ${next} out of range`);
    const arg = args[next++];
    switch (clause[2]) {
      case 's':
        out += formatString(arg);
        break;
      case 'd':
        out += String(integerOf(arg, 'decimal'));
        break;
      case 'f': {
        const n = numberOf(arg, 'fixed-point');
        out += Number.isFinite(n) ? n.toFixed(precision) : formatString(n);
        break;
      }
      case 'e': {
        const n = numberOf(arg, 'scientific');
        out += Number.isFinite(n)
          ? n.toExponential(precision).replace(/e([+-])(\d)$/, 'e$10$2')
          : formatString(n);
        break;
      }
      case 'b':
        out += integerOf(arg, 'binary').toString(2);
        break;
      case 'o':
        out += integerOf(arg, 'octal').toString(8);
        break;
      case 'x':
      case 'X': {
        let hex: string;
        if (typeof arg === 'string') hex = Buffer.from(arg, 'utf8').toString('hex');
        else if (arg instanceof Uint8Array) hex = Buffer.from(arg).toString('hex');
        else hex = integerOf(arg, 'hex').toString(16);
        out += clause[2] === 'X' ? hex.toUpperCase() : hex;
        break;
      }
      default:
        throw new Error(`could not parse formatting clause: unrecognized formatting clause "${clause[2]}"`);
    }
  }
  return out;
}

export function registerStrings(env: Environment): void {
  env.registerFunction('string.format(list): string', (template: string, args: unknown[]) =>
    format(template, args),
  );
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => {
    const chars = [...text];
    const i = Number(index);
    if (i < 0 || i > chars.length) throw new Error(`index out of range: ${i}`);
    return chars[i] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (text: string, from: string, to: string) =>
    replace(text, from, to, -1),
  );
  env.registerFunction(
    'string.replace(string, string, int): string',
    (text: string, from: string, to: string, n: bigint) => replace(text, from, to, Number(n)),
  );
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerFunction('StringsNamespace.quote(string): string', (_ns: StringsNamespace, text: string) =>
    quote(text),
  );
}
