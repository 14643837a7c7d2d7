// Errors as cel-go prints them: compile errors (common/errors.go) as `ERROR: <input>:line:col:
// message`, the source line and a caret under the column; evaluation errors in its wording.
import type { ASTNode } from '@marcbachmann/cel-js';

interface LibraryError {
  code?: string;
  summary?: string;
  message: string;
  node?: { op?: string; args?: unknown; start?: number; end?: number; pos?: number } | ASTNode;
  range?: { start: number; end: number };
}

const BINARY_OPERATORS = new Set([
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  'in',
  '&&',
  '||',
]);

/**
 * Where cel-go points: the `.` of a selection, the operator of a binary expression, the `(` of a
 * call, the `[` of an index, else the start of the expression.
 */
function offsetOf(error: LibraryError, source: string): number {
  const node = error.node as { op?: string; args?: unknown; start?: number; pos?: number } | undefined;
  const start = error.range?.start ?? node?.pos ?? 0;
  if (node?.op === undefined || !Array.isArray(node.args)) return start;
  const args = node.args as unknown[];
  const endOf = (value: unknown): number | undefined =>
    typeof value === 'object' && value !== null && 'end' in value
      ? (value as { end: number }).end
      : undefined;
  let from: number | undefined;
  let token: string | undefined;
  if (node.op === '.' || node.op === '.?') [from, token] = [endOf(args[0]), '.'];
  else if (node.op === '[]' || node.op === '[?]') [from, token] = [endOf(args[0]), '['];
  else if (BINARY_OPERATORS.has(node.op)) [from, token] = [endOf(args[0]), node.op];
  else if (node.op === 'rcall') [from, token] = [endOf(args[1]), '('];
  else if (node.op === 'call') [from, token] = [start, '('];
  if (from === undefined || token === undefined) return start;
  const at = source.indexOf(token, from);
  return at < 0 ? start : at;
}

/** cel-go's wording for the library's messages, where they differ. */
/** A type as cel-go prints it: `list(string)`, `map(string, int)`. */
function goTypeText(text: string): string {
  return text === 'null' ? 'null_type' : text.replaceAll('<', '(').replaceAll('>', ')');
}

const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = { in: '@in', '[]': '_[_]' };

/** cel-go's wording for the library's messages, where they differ. */
function messageOf(error: LibraryError): string {
  const summary = error.summary ?? error.message.split('\n')[0]!;
  const undefinedField = /^No such key: (.*)$/.exec(summary);
  if (undefinedField) return `undefined field '${undefinedField[1]}'`;
  const unknownVariable = /^Unknown variable: (.*)$/.exec(summary);
  if (unknownVariable) return `undeclared reference to '${unknownVariable[1]}' (in container '')`;
  const operator = /^no such overload: (.+) (\S+) (.+)$/.exec(summary);
  if (operator) {
    const name = OPERATOR_FUNCTIONS[operator[2]!] ?? `_${operator[2]}_`;
    return `found no matching overload for '${name}' applied to '(${goTypeText(operator[1]!)}, ${goTypeText(operator[3]!)})'`;
  }
  const call = /^found no matching overload for '(?:(.+)\.)?([A-Za-z_]\w*)\((.*)\)'$/.exec(summary);
  if (call) {
    // The library names only the receiver's kind (`list`); the checked receiver has its full type.
    const node = error.node as { op?: string; args?: unknown[] } | undefined;
    const checked =
      node?.op === 'rcall'
        ? (node.args?.[1] as { checkedType?: object } | undefined)?.checkedType
        : undefined;
    const receiverType = checked?.toString() ?? call[1];
    const receiver = receiverType === undefined ? '' : `${goTypeText(receiverType)}.`;
    return `found no matching overload for '${call[2]}' applied to '${receiver}(${goTypeText(call[3]!)})'`;
  }
  if (error.code === 'syntax_error' || error.code?.startsWith('unexpected') || /^Unexpected/.test(summary))
    return `Syntax error: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`;
  return summary;
}

/** The error text cel-go's `Issues.String()` gives for one error in `source`. */
export function formatIssue(error: LibraryError, source: string): string {
  const offset = Math.max(0, Math.min(offsetOf(error, source), source.length));
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const lineText = source.slice(lineStart).split('\n')[0]!.replaceAll('\t', ' ');
  const message = messageOf(error);
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${lineText}\n | ${'.'.repeat(column)}^`;
}

/** An evaluation error in cel-go's words (`no such key: x`, `division by zero`, ...). */
export function runtimeErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, summary } = error as Error & { code?: string; summary?: string };
  const text = summary ?? error.message.split('\n')[0]!;
  switch (code) {
    case 'no_such_key':
      return text.replace(/^No such key/, 'no such key');
    case 'index_out_of_bounds': {
      const match = /index (-?\d+) (?:< 0|>= size (\d+))/.exec(text);
      return match ? `index '${match[1]}' out of range in list size '${match[2] ?? '0'}'` : text;
    }
    case 'modulo_by_zero':
      return 'modulus by zero';
    case 'numeric_overflow':
      return 'integer overflow';
    case 'optional_value_missing':
      return 'optional.none() dereference';
    default:
      return text;
  }
}
