// CEL's two-variable comprehensions (cel-go ext/comprehensions.go, Kubernetes 1.32+): all, exists,
// existsOne, transformList, transformMap and transformMapEntry with an index (or key) and a value
// variable. Written as macros of the CEL library: type-checked with both variables declared, and
// evaluated over list indexes and items, or map keys and values.
import type { ASTNode, Environment } from '@marcbachmann/cel-js';

/** The slice of the library's checker a macro uses. */
interface Checker {
  check(node: ASTNode, ctx: Scope): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node: ASTNode): Error;
  registry: { getListType(t: CelType): CelType; getMapType?(k: CelType, v: CelType): CelType };
}

interface CelType {
  kind: string;
  keyType?: CelType;
  valueType?: CelType;
  toString(): string;
}

/** The library's variable scopes (overlay contexts). */
interface Scope {
  forkWithVariable(name: string, type: CelType): Scope;
  reuse(parent: Scope): Scope;
  setIterValue(value: unknown, ev: Evaluator): Scope;
}

interface Evaluator {
  run(node: ASTNode, ctx: Scope): unknown;
}

interface Macro {
  receiver: ASTNode;
  keyVar: string;
  valueVar: string;
  filter?: ASTNode | undefined;
  body: ASTNode;
  keyScope?: Scope;
  valueScope?: Scope;
  resultType?: CelType;
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

function identifier(node: ASTNode | undefined, checker: Checker, name: string): string {
  if (node?.op !== 'id')
    throw checker.createError('invalid_macro_argument', `${name}() invalid iteration variable`, node!);
  return node.args;
}

function entriesOf(collection: unknown): [unknown, unknown][] {
  if (Array.isArray(collection)) return collection.map((item, i) => [BigInt(i), item]);
  if (collection instanceof Map) return [...collection.entries()];
  if (collection !== null && typeof collection === 'object') return Object.entries(collection);
  throw new Error('comprehension range must be a list or a map');
}

function macroFor(kind: Kind, withFilter: boolean) {
  const typeCheck = (checker: Checker, macro: Macro & { args: ASTNode[] }, ctx: Scope): CelType => {
    const rangeType = checker.check(macro.receiver, ctx);
    const dyn = checker.getType('dyn');
    const keyType =
      rangeType.kind === 'list'
        ? checker.getType('int')
        : rangeType.kind === 'map'
          ? (rangeType.keyType ?? dyn)
          : dyn;
    const valueType =
      rangeType.kind === 'list' || rangeType.kind === 'map' ? (rangeType.valueType ?? dyn) : dyn;
    macro.keyVar = identifier(macro.args[0], checker, kind);
    macro.valueVar = identifier(macro.args[1], checker, kind);
    macro.keyScope = ctx.forkWithVariable(macro.keyVar, keyType);
    macro.valueScope = macro.keyScope.forkWithVariable(macro.valueVar, valueType);
    if (macro.filter !== undefined) checker.check(macro.filter, macro.valueScope);
    const bodyType = checker.check(macro.body, macro.valueScope);
    switch (kind) {
      case 'transformList':
        return checker.registry.getListType(bodyType);
      case 'transformMap':
        return checker.getType(`map<${keyType}, ${bodyType}>`);
      case 'transformMapEntry':
        return bodyType;
      default:
        return checker.getType('bool');
    }
  };

  const evaluate = (ev: Evaluator, macro: Macro, ctx: Scope): unknown => {
    const entries = entriesOf(ev.run(macro.receiver, ctx));
    const run = (key: unknown, value: unknown, node: ASTNode): unknown => {
      const keyScope = macro.keyScope!.reuse(ctx).setIterValue(key, ev);
      return ev.run(node, macro.valueScope!.reuse(keyScope).setIterValue(value, ev));
    };
    const included = (key: unknown, value: unknown): boolean =>
      macro.filter === undefined || run(key, value, macro.filter) === true;
    switch (kind) {
      case 'all':
        return entries.every(([k, v]) => run(k, v, macro.body) === true);
      case 'exists':
        return entries.some(([k, v]) => run(k, v, macro.body) === true);
      case 'existsOne':
        return entries.filter(([k, v]) => run(k, v, macro.body) === true).length === 1;
      case 'transformList':
        return entries.filter(([k, v]) => included(k, v)).map(([k, v]) => run(k, v, macro.body));
      case 'transformMap': {
        const result = new Map<unknown, unknown>();
        for (const [k, v] of entries) if (included(k, v)) result.set(k, run(k, v, macro.body));
        return result;
      }
      case 'transformMapEntry': {
        const result = new Map<unknown, unknown>();
        for (const [k, v] of entries) {
          if (!included(k, v)) continue;
          const entry = run(k, v, macro.body);
          const pairs = entry instanceof Map ? [...entry.entries()] : Object.entries(entry as object);
          for (const [key, value] of pairs) {
            if (result.has(key)) throw new Error(`insert failed: key ${String(key)} already exists`);
            result.set(key, value);
          }
        }
        return result;
      }
    }
  };

  return ({ args, receiver }: { args: ASTNode[]; receiver: ASTNode }) => ({
    args,
    receiver,
    keyVar: '',
    valueVar: '',
    filter: withFilter ? args[2] : undefined,
    body: withFilter ? args[3]! : args[2]!,
    typeCheck,
    evaluate,
    async: false,
  });
}

export function registerTwoVariableComprehensions(env: Environment): void {
  const register = (signature: string, kind: Kind, withFilter = false): void => {
    env.registerFunction(signature, macroFor(kind, withFilter) as unknown as (...args: unknown[]) => unknown);
  };
  for (const receiver of ['list', 'map']) {
    register(`${receiver}.all(ast, ast, ast): bool`, 'all');
    register(`${receiver}.exists(ast, ast, ast): bool`, 'exists');
    register(`${receiver}.existsOne(ast, ast, ast): bool`, 'existsOne');
    register(`${receiver}.transformList(ast, ast, ast): list<dyn>`, 'transformList');
    register(`${receiver}.transformList(ast, ast, ast, ast): list<dyn>`, 'transformList', true);
    register(`${receiver}.transformMap(ast, ast, ast): map<dyn, dyn>`, 'transformMap');
    register(`${receiver}.transformMap(ast, ast, ast, ast): map<dyn, dyn>`, 'transformMap', true);
    register(`${receiver}.transformMapEntry(ast, ast, ast): map<dyn, dyn>`, 'transformMapEntry');
    register(`${receiver}.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>`, 'transformMapEntry', true);
  }
}
