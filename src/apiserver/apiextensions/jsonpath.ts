// The part of client-go's JSONPath (k8s.io/client-go/util/jsonpath) that printer columns use:
// `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `[0:2]` and filters `[?(@.type=="Ready")]`, evaluated with
// missing keys allowed (no result instead of an error).
import { isJsonObject } from '../../api/object.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'filter'; path: string[]; op?: string; value?: unknown };

/** Parses a column's JSON path; throws on what this subset does not read. */
export function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const text = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '.') {
      i++;
      if (text[i] === '*') {
        steps.push({ kind: 'wildcard' });
        i++;
        continue;
      }
      const match = /^[^.[\]]*/.exec(text.slice(i))![0];
      if (match !== '') steps.push({ kind: 'field', name: match });
      i += match.length;
      continue;
    }
    if (ch === '[') {
      const close = findClose(text, i);
      const inner = text.slice(i + 1, close).trim();
      i = close + 1;
      steps.push(bracketStep(inner));
      continue;
    }
    throw new Error(`unrecognized character in action: ${ch}`);
  }
  return steps;
}

function findClose(text: string, open: number): number {
  let quote = '';
  for (let j = open + 1; j < text.length; j++) {
    const ch = text[j]!;
    if (quote !== '') {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ']') return j;
  }
  throw new Error('unterminated array');
}

function bracketStep(inner: string): Step {
  if (inner === '*') return { kind: 'wildcard' };
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted) return { kind: 'field', name: quoted[2]! };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const slice = /^(-?\d*):(-?\d*)$/.exec(inner);
  if (slice) {
    return {
      kind: 'slice',
      ...(slice[1] !== '' ? { start: Number(slice[1]) } : {}),
      ...(slice[2] !== '' ? { end: Number(slice[2]) } : {}),
    };
  }
  const filter = /^\?\(\s*@((?:\.[^.=!<>\s)]+)*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$/.exec(inner);
  if (filter) {
    const path = filter[1]!.split('.').filter((part) => part !== '');
    if (filter[2] === undefined) return { kind: 'filter', path };
    return { kind: 'filter', path, op: filter[2], value: literal(filter[3]!) };
  }
  throw new Error(`invalid array index ${inner}`);
}

function literal(text: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2];
  if (text === 'true' || text === 'false') return text === 'true';
  const n = Number(text);
  return Number.isNaN(n) ? text : n;
}

function compare(left: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      if (typeof left !== 'number' || typeof right !== 'number') return false;
      if (op === '<') return left < right;
      if (op === '>') return left > right;
      if (op === '<=') return left <= right;
      return left >= right;
    }
  }
}

function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const part of path) current = isJsonObject(current) ? current[part] : undefined;
  return current;
}

/** Every value the path finds in `root`, in order (empty when nothing matches). */
export function findResults(steps: readonly Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      switch (step.kind) {
        case 'field':
          if (isJsonObject(value) && value[step.name] !== undefined) next.push(value[step.name]);
          break;
        case 'wildcard':
          if (Array.isArray(value)) next.push(...value);
          else if (isJsonObject(value)) next.push(...Object.values(value));
          break;
        case 'index':
          if (Array.isArray(value)) {
            const at = step.index < 0 ? value.length + step.index : step.index;
            if (at >= 0 && at < value.length) next.push(value[at]);
          }
          break;
        case 'slice':
          if (Array.isArray(value)) next.push(...value.slice(step.start ?? 0, step.end ?? value.length));
          break;
        case 'filter':
          if (Array.isArray(value)) {
            for (const item of value) {
              const found = walk(item, step.path);
              if (step.op === undefined ? found !== undefined : compare(found, step.op, step.value))
                next.push(item);
            }
          }
          break;
      }
    }
    current = next;
  }
  return current;
}
