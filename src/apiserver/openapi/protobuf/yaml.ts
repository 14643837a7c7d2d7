// gnostic keeps every value it has no message for (vendor extensions, defaults, enums, examples)
// as YAML text in `Any.yaml`, and clients (kube-openapi's proto models, used by kubectl) parse it
// back with go-yaml. This renders a JSON value with go-yaml v3's Marshal layout: block style, a
// nested collection at the next multiple of four columns (two past a sequence's dash), one trailing
// newline. Strings stay plain only when no YAML 1.1 or 1.2 reader could take them for anything
// else; others are single-quoted when printable, double-quoted with escapes otherwise.

import type { JsonObject, JsonValue } from './message.js';

const INDENT = 4;

// The column of a collection nested under a mapping key at `column`.
function nestedColumn(column: number): number {
  return INDENT * Math.floor((column + INDENT) / INDENT);
}

// Words that go-yaml (v2 reads YAML 1.1) would resolve to a bool or null instead of a string.
const RESERVED_WORD =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$/;
// A conservative plain scalar: starts with a letter, `_` or `/` (so never a number, indicator or
// `.inf`), and holds no `:`, `#`, quotes, brackets or other characters with a meaning in YAML.
const SAFE_PLAIN = /^[A-Za-z_/][A-Za-z0-9_./()=+, -]*$/;
// Characters a single-quoted scalar can carry as they are.
const PRINTABLE = /^[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/u;
// Text that go-yaml would read as a number, so it quotes it with double quotes.
const NUMBER_LIKE = /^[-+.0-9]/;

function doubleQuoted(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0xfeff
    )
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    // A lone surrogate is not a character YAML can carry; Go would have replaced it the same way.
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\uFFFD';
    else out += char;
  }
  return `${out}"`;
}

function stringScalar(text: string): string {
  const reserved = RESERVED_WORD.test(text);
  if (SAFE_PLAIN.test(text) && !text.endsWith(' ') && !reserved) return text;
  if (text === '' || reserved || NUMBER_LIKE.test(text) || !PRINTABLE.test(text)) return doubleQuoted(text);
  return `'${text.replaceAll("'", "''")}'`;
}

function scalar(value: null | boolean | number | string): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return stringScalar(value);
  return String(value);
}

function isCollection(value: JsonValue): value is JsonValue[] | JsonObject {
  return typeof value === 'object' && value !== null;
}

function isEmpty(value: JsonValue[] | JsonObject): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** Lines of a non-empty collection whose first line starts at `column` (already indented). */
function block(value: JsonValue[] | JsonObject, column: number, lines: string[]): void {
  const pad = ' '.repeat(column);
  const entries: [string | undefined, JsonValue][] = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : Object.entries(value);
  entries.forEach(([key, item], index) => {
    const first = index === 0 ? '' : pad;
    const lead = key === undefined ? `${first}- ` : `${first}${stringScalar(key)}:`;
    if (!isCollection(item)) {
      lines.push(key === undefined ? lead + scalar(item) : `${lead} ${scalar(item)}`);
    } else if (isEmpty(item)) {
      const empty = Array.isArray(item) ? '[]' : '{}';
      lines.push(key === undefined ? lead + empty : `${lead} ${empty}`);
    } else if (key === undefined) {
      // A collection in a sequence starts on the dash's line, its entries two columns in.
      const start = lines.length;
      block(item, column + 2, lines);
      lines[start] = lead + lines[start];
    } else {
      lines.push(lead);
      const nested = ' '.repeat(nestedColumn(column));
      const start = lines.length;
      block(item, nestedColumn(column), lines);
      lines[start] = nested + lines[start];
    }
  });
}

/** `value` as go-yaml would marshal it, ending in a newline. */
export function toYaml(value: unknown): string {
  const json = value as JsonValue;
  if (!isCollection(json)) return `${scalar(json)}\n`;
  if (isEmpty(json)) return Array.isArray(json) ? '[]\n' : '{}\n';
  const lines: string[] = [];
  block(json, 0, lines);
  return `${lines.join('\n')}\n`;
}
