// Static cost estimate of a rule (cel-go checker/cost.go with Kubernetes' size estimator,
// apiextensions schema/cel/compilation.go): each step costs 1, string and list work costs a
// tenth per element, comprehensions cost their body once per element; sizes come from the
// schema's maxLength, maxItems and maxProperties, or what fits in one request. The same walk
// with the sizes of actual values stands in for cel-go's runtime cost tracking.
import type { ASTNode } from '@marcbachmann/cel-js';
import { type DeclType, MAX_REQUEST_SIZE_BYTES } from './decl-types.js';

/**
 * What an expression is known to be: its declared type (when it comes from `self`), the JSON
 * values it can take (when estimating against actual values) and its largest size.
 */
interface Estimate {
  cost: number;
  size: number;
  type?: DeclType | undefined;
  values?: unknown[] | undefined;
}

/** What a variable is bound to: its declared type and, at runtime, its candidate JSON values. */
interface Binding {
  type: DeclType | undefined;
  values?: unknown[] | undefined;
}

type Scope = ReadonlyMap<string, Binding>;

function jsonSize(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length;
  return 1;
}

/** The size of an expression: the largest actual value when known, else the declared bound. */
function sized(
  type: DeclType | undefined,
  values: unknown[] | undefined,
): { size: number; type?: DeclType | undefined; values?: unknown[] | undefined } {
  if (values === undefined) return { size: sizeOf(type), type };
  let size = 0;
  for (const value of values) size = Math.max(size, jsonSize(value));
  return { size, type, values };
}

/** The JSON values under a property of each of `values`. */
function fieldValues(values: unknown[] | undefined, name: string | undefined): unknown[] | undefined {
  if (values === undefined || name === undefined) return undefined;
  const result: unknown[] = [];
  for (const value of values)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const field = (value as Record<string, unknown>)[name];
      if (field !== undefined) result.push(field);
    }
  return result;
}

/** The items of lists, values of maps among `values`. */
function elementValues(values: unknown[] | undefined): unknown[] | undefined {
  if (values === undefined) return undefined;
  const result: unknown[] = [];
  for (const value of values)
    if (Array.isArray(value)) result.push(...value);
    else if (typeof value === 'object' && value !== null) result.push(...Object.values(value));
  return result;
}

/** What a comprehension's variable ranges over: list items or map keys. */
function iterationValues(values: unknown[] | undefined): unknown[] | undefined {
  if (values === undefined) return undefined;
  const result: unknown[] = [];
  for (const value of values)
    if (Array.isArray(value)) result.push(...value);
    else if (typeof value === 'object' && value !== null) result.push(...Object.keys(value));
  return result;
}

const UNBOUNDED_SIZE = MAX_REQUEST_SIZE_BYTES;
const TRAVERSAL_FACTOR = 0.1;
const REGEX_LENGTH_FACTOR = 0.25;
const LIST_CREATE_COST = 10;
const MAP_CREATE_COST = 30;
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const TRAVERSING_METHODS = new Set([
  'contains',
  'startsWith',
  'endsWith',
  'indexOf',
  'lastIndexOf',
  'lowerAscii',
  'upperAscii',
  'trim',
  'replace',
  'split',
  'substring',
  'charAt',
  'reverse',
  'join',
  'isSorted',
  'sum',
  'min',
  'max',
  'quote',
]);

function traversal(size: number): number {
  return Math.ceil(size * TRAVERSAL_FACTOR);
}

function sizeOf(type: DeclType | undefined): number {
  if (type === undefined) return UNBOUNDED_SIZE;
  if (type.kind === 'object') return type.fields.size;
  if (type.kind === 'scalar' && type.maxElements === 0) return 1;
  return type.maxElements;
}

function estimate(node: ASTNode, scope: Scope): Estimate {
  switch (node.op) {
    case 'value': {
      const value = node.args;
      return { cost: 0, size: typeof value === 'string' ? value.length : 1 };
    }
    case 'id': {
      const binding = scope.get(node.args);
      if (binding !== undefined) return { cost: 1, ...sized(binding.type, binding.values) };
      return { cost: 1, size: UNBOUNDED_SIZE };
    }
    case '.':
    case '.?': {
      const operand = estimate(node.args[0], scope);
      const field = operand.type?.kind === 'object' ? operand.type.fields.get(node.args[1]) : undefined;
      const mapValue = operand.type?.kind === 'map' ? operand.type.elem : undefined;
      const values = fieldValues(operand.values, field?.jsonName ?? (mapValue ? node.args[1] : undefined));
      return { cost: operand.cost + 1, ...sized(field?.type ?? mapValue, values) };
    }
    case '[]':
    case '[?]': {
      const operand = estimate(node.args[0], scope);
      const index = estimate(node.args[1], scope);
      const elem =
        operand.type?.kind === 'list' || operand.type?.kind === 'map' ? operand.type.elem : undefined;
      return { cost: operand.cost + index.cost + 1, ...sized(elem, elem && elementValues(operand.values)) };
    }
    case 'list': {
      const items = node.args.map((item) => estimate(item, scope));
      return { cost: LIST_CREATE_COST + sum(items.map((i) => i.cost)), size: items.length };
    }
    case 'map': {
      const entries = node.args.flatMap(([k, v]) => [estimate(k, scope), estimate(v, scope)]);
      return { cost: MAP_CREATE_COST + sum(entries.map((e) => e.cost)), size: node.args.length };
    }
    case '?:': {
      const [cond, yes, no] = node.args.map((a) => estimate(a, scope)) as [Estimate, Estimate, Estimate];
      return { cost: cond.cost + Math.max(yes.cost, no.cost), size: Math.max(yes.size, no.size) };
    }
    case '&&':
    case '||': {
      const [left, right] = node.args.map((a) => estimate(a, scope)) as [Estimate, Estimate];
      return { cost: left.cost + right.cost, size: 1 };
    }
    case '!_':
    case '-_':
      return { cost: estimate(node.args, scope).cost + 1, size: 1 };
    case 'call':
      return estimateCall(node.args[0], undefined, node.args[1], scope);
    case 'rcall':
      return estimateCall(node.args[0], node.args[1], node.args[2], scope);
    default: {
      const [left, right] = (node.args as [ASTNode, ASTNode]).map((a) => estimate(a, scope)) as [
        Estimate,
        Estimate,
      ];
      let opCost = 1;
      let size = 1;
      if (node.op === '==' || node.op === '!=')
        opCost = Math.max(1, traversal(Math.min(left.size, right.size)));
      else if (node.op === '+') {
        size = left.size + right.size;
        opCost = Math.max(1, traversal(size));
      } else if (node.op === 'in') opCost = right.size;
      return { cost: left.cost + right.cost + opCost, size };
    }
  }
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function estimateCall(name: string, target: ASTNode | undefined, args: ASTNode[], scope: Scope): Estimate {
  if (name === 'has' && target === undefined && args.length === 1 && args[0]!.op === '.') {
    return { cost: estimate(args[0]!.args[0] as ASTNode, scope).cost + 1, size: 1 };
  }
  const receiver = target === undefined ? undefined : estimate(target, scope);
  if (receiver !== undefined && COMPREHENSIONS.has(name) && args.length >= 2 && args[0]!.op === 'id') {
    const elemType =
      receiver.type?.kind === 'list'
        ? receiver.type.elem
        : receiver.type?.kind === 'map'
          ? {
              kind: 'scalar' as const,
              name: 'string' as const,
              maxElements: UNBOUNDED_SIZE - 2,
              minSerializedSize: 2,
            }
          : undefined;
    const inner = new Map(scope);
    inner.set(args[0]!.args as string, { type: elemType, values: iterationValues(receiver.values) });
    const bodies = sum(args.slice(1).map((body) => estimate(body, inner).cost));
    const perStep = bodies + (name === 'map' || name === 'filter' ? 1 + LIST_CREATE_COST + 3 : 3);
    return { cost: receiver.cost + receiver.size * perStep + 1, size: receiver.size };
  }
  const argEstimates = args.map((a) => estimate(a, scope));
  let callCost = 1;
  let size = 1;
  const receiverSize = receiver?.size ?? argEstimates[0]?.size ?? 1;
  if (name === 'matches' || name === 'find' || name === 'findAll') {
    const patternSize = argEstimates[argEstimates.length - 1]?.size ?? 1;
    const strSize = receiver?.size ?? argEstimates[0]?.size ?? 1;
    callCost = Math.max(1, traversal(strSize)) * Math.max(1, Math.ceil(patternSize * REGEX_LENGTH_FACTOR));
    size = strSize;
  } else if (TRAVERSING_METHODS.has(name)) {
    callCost = Math.max(1, traversal(receiverSize + sum(argEstimates.map((a) => a.size))));
    size = receiverSize;
  } else if (name === 'indexOf' || name === 'lastIndexOf') {
    callCost = receiverSize;
  }
  return {
    cost: (receiver?.cost ?? 0) + sum(argEstimates.map((a) => a.cost)) + callCost,
    size,
  };
}

/** The largest cost of evaluating `ast` once with `self` (and `oldSelf`) of type `selfType`. */
export function estimateMaxCost(ast: ASTNode, selfType: DeclType | undefined): number {
  const scope = new Map<string, Binding>([
    ['self', { type: selfType }],
    ['oldSelf', { type: selfType }],
  ]);
  return estimate(ast, scope).cost;
}

/**
 * The cost of evaluating `ast` on these JSON values, bounded by their actual sizes: what stands
 * in for cel-go's runtime cost (PerCallLimit and the per-object budget).
 */
export function estimateActualCost(
  ast: ASTNode,
  selfType: DeclType,
  self: unknown,
  oldSelf: unknown,
): number {
  const scope = new Map<string, Binding>([
    ['self', { type: selfType, values: [self] }],
    ['oldSelf', { type: selfType, values: oldSelf === undefined ? [] : [oldSelf] }],
  ]);
  return estimate(ast, scope).cost;
}

/** How often a rule of a node with this type can run in one request when its ancestors are unbounded. */
export function maxCardinality(minSerializedSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1));
}
