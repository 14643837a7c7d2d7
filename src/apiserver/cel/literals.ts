// Checks of constant arguments after type-checking, as the Kubernetes environment runs them:
// cel-go's AST validators (ValidateDurationLiterals, ValidateTimestampLiterals,
// ValidateRegexLiterals: "invalid <function> argument") and the regex library's precompiled
// find/findAll patterns (refused when the program is created), and the homogeneous list and map
// literals of ValidateHomogeneousAggregateLiterals, which exempts the arguments of format().
import type { ASTNode } from '@marcbachmann/cel-js';
import { newKubernetesEnvironment, parseDuration } from './environment.js';
import { regexProblem } from './library/regex.js';

/** Every node of an expression tree. */
export function* nodesOf(node: ASTNode): Generator<ASTNode> {
  yield node;
  if (node.op === 'value' || node.op === 'id') return;
  const visit = function* (value: unknown): Generator<ASTNode> {
    if (Array.isArray(value)) for (const item of value) yield* visit(item);
    else if (value !== null && typeof value === 'object' && 'op' in value) yield* nodesOf(value as ASTNode);
  };
  yield* visit(node.args);
}

/** The CEL type text of a checked node as cel-go prints it (`list(int)`, `map(string, int)`). */
function typeText(node: ASTNode): string {
  const type = (node as ASTNode & { checkedType?: { toString(): string } }).checkedType;
  return (type?.toString() ?? 'dyn').replaceAll('<', '(').replaceAll('>', ')');
}

/** Lists and maps with their ancestors, for the exemption of format() arguments. */
function* aggregatesOf(node: ASTNode, ancestors: ASTNode[] = []): Generator<[ASTNode, ASTNode[]]> {
  if (node.op === 'list' || node.op === 'map') yield [node, ancestors];
  if (node.op === 'value' || node.op === 'id') return;
  const inner = [...ancestors, node];
  const visit = function* (value: unknown): Generator<[ASTNode, ASTNode[]]> {
    if (Array.isArray(value)) for (const item of value) yield* visit(item);
    else if (value !== null && typeof value === 'object' && 'op' in value)
      yield* aggregatesOf(value as ASTNode, inner);
  };
  yield* visit(node.args);
}

function insideFormat(ancestors: ASTNode[]): boolean {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const parent = ancestors[i]!;
    if (parent.op === 'list' || parent.op === 'map') continue;
    return (parent.op === 'rcall' || parent.op === 'call') && parent.args[0] === 'format';
  }
  return false;
}

/** The first element of a list or map literal whose type differs from the first element's. */
function mixedAggregate(ast: ASTNode): { node: ASTNode; message: string } | undefined {
  for (const [aggregate, ancestors] of aggregatesOf(ast)) {
    if (insideFormat(ancestors)) continue;
    const columns: ASTNode[][] =
      aggregate.op === 'list'
        ? [aggregate.args as ASTNode[]]
        : [
            (aggregate.args as [ASTNode, ASTNode][]).map(([k]) => k),
            (aggregate.args as [ASTNode, ASTNode][]).map(([, v]) => v),
          ];
    for (const column of columns) {
      const expected = column[0] === undefined ? undefined : typeText(column[0]);
      for (const element of column.slice(1)) {
        const actual = typeText(element);
        if (expected !== undefined && actual !== expected && expected !== 'dyn' && actual !== 'dyn')
          return { node: element, message: `expected type '${expected}' but found '${actual}'` };
      }
    }
  }
  return undefined;
}

/** A call's name, receiver-less arguments (the receiver first for method calls). */
function callOf(node: ASTNode): { name: string; args: ASTNode[] } | undefined {
  if (node.op === 'call') return { name: node.args[0], args: node.args[1] };
  if (node.op === 'rcall') return { name: node.args[0], args: [node.args[1], ...node.args[2]] };
  return undefined;
}

function constantString(node: ASTNode | undefined): string | undefined {
  return node?.op === 'value' && typeof node.args === 'string' ? node.args : undefined;
}

let timestampProgram: ((context: { text: string }) => unknown) | undefined;

function validTimestamp(text: string): boolean {
  if (timestampProgram === undefined) {
    const env = newKubernetesEnvironment();
    env.registerVariable('text', 'string');
    timestampProgram = env.parse('timestamp(text)');
  }
  try {
    timestampProgram({ text });
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text);
  } catch {
    return false;
  }
}

function validDuration(text: string): boolean {
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first literal the Kubernetes environment refuses after type-checking: a constant
 * `matches`, `duration` or `timestamp` argument that is not valid, or a mixed list or map.
 */
export function invalidLiteral(ast: ASTNode): { node: ASTNode; message: string } | undefined {
  const mixed = mixedAggregate(ast);
  if (mixed !== undefined) return mixed;
  for (const node of nodesOf(ast)) {
    const call = callOf(node);
    if (call === undefined) continue;
    const literal = call.name === 'matches' ? call.args[1] : call.args[0];
    const text = constantString(literal);
    if (text === undefined || call.args.length !== (call.name === 'matches' ? 2 : 1)) continue;
    const ok =
      call.name === 'matches'
        ? regexProblem(text) === undefined
        : call.name === 'duration'
          ? validDuration(text)
          : call.name === 'timestamp'
            ? validTimestamp(text)
            : true;
    if (!ok) return { node: literal!, message: `invalid ${call.name} argument` };
  }
  return undefined;
}

/** The problem of the first constant find/findAll pattern that does not compile. */
export function invalidFindPattern(ast: ASTNode): string | undefined {
  for (const node of nodesOf(ast)) {
    const call = callOf(node);
    if (call === undefined || (call.name !== 'find' && call.name !== 'findAll')) continue;
    const pattern = constantString(call.args[1]);
    const problem = pattern === undefined ? undefined : regexProblem(pattern);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
