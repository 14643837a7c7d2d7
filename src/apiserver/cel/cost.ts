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
  /** The kind of a literal, when the expression is one. */
  literal?: 'string' | 'list' | 'map' | undefined;
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

/** The size of what cannot be bounded (cel-go's math.MaxUint64). */
const UNBOUNDED_SIZE = 2 ** 64 - 1;
/** Map keys are strings of at most a request's size. */
const MAP_KEY_SIZE = MAX_REQUEST_SIZE_BYTES - 2;
const TRAVERSAL_FACTOR = 0.1;
const REGEX_LENGTH_FACTOR = 0.25;
const LIST_CREATE_COST = 10;
const MAP_CREATE_COST = 30;
const COMPREHENSIONS = new Set([
  'all',
  'exists',
  'exists_one',
  'existsOne',
  'map',
  'filter',
  'transformList',
  'transformMap',
  'transformMapEntry',
]);
/** Macros whose two-variable form takes a key (or index) and a value variable. */
const TWO_VARIABLE = new Set([
  'all',
  'exists',
  'existsOne',
  'transformList',
  'transformMap',
  'transformMapEntry',
]);
/** Set-up and per-element cost of each macro's comprehension, apart from its body. */
const MACRO_COSTS: Readonly<Record<string, [number, number]>> = {
  all: [1, 3],
  exists: [1, 4],
  exists_one: [2, 2],
  existsOne: [2, 2],
  transformList: [LIST_CREATE_COST + 1, 2 + LIST_CREATE_COST],
  transformMap: [MAP_CREATE_COST + 1, 3],
  transformMapEntry: [MAP_CREATE_COST + 1, 3],
  map: [LIST_CREATE_COST + 1, 2 + LIST_CREATE_COST],
  filter: [LIST_CREATE_COST + 1, 3 + LIST_CREATE_COST],
};

/** cel-go's MultiplyByCostFactor with the string traversal factor (rounded up). */
function traversal(size: number): number {
  return Math.ceil(size * TRAVERSAL_FACTOR);
}

/** The size bound the schema gives a value (numbers, booleans and objects have none: 0). */
function sizeOf(type: DeclType | undefined): number {
  if (type === undefined) return UNBOUNDED_SIZE;
  return type.maxElements;
}

function estimate(node: ASTNode, scope: Scope): Estimate {
  switch (node.op) {
    case 'value': {
      const value = node.args;
      return typeof value === 'string'
        ? { cost: 0, size: value.length, literal: 'string' }
        : { cost: 0, size: 1 };
    }
    case 'id': {
      const binding = scope.get(node.args);
      if (binding !== undefined) return { cost: 1, ...sized(binding.type, binding.values) };
      return { cost: 1, size: UNBOUNDED_SIZE };
    }
    case '.':
    case '.?': {
      const operand = estimate(node.args[0], scope);
      // cel-go's size estimator follows object fields only: a map entry read with `.` has no
      // known size (one read with `[]` does).
      const field = operand.type?.kind === 'object' ? operand.type.fields.get(node.args[1]) : undefined;
      // Untyped values (admission's `object`) are followed by their JSON property names.
      const name = operand.type === undefined ? String(node.args[1]) : field?.jsonName;
      const values = fieldValues(operand.values, name);
      return { cost: operand.cost + 1, ...sized(field?.type, values) };
    }
    case '[]':
    case '[?]': {
      const operand = estimate(node.args[0], scope);
      const index = estimate(node.args[1], scope);
      const elem =
        operand.type?.kind === 'list' || operand.type?.kind === 'map' ? operand.type.elem : undefined;
      const items =
        elem !== undefined || operand.type === undefined ? elementValues(operand.values) : undefined;
      return { cost: operand.cost + index.cost + 1, ...sized(elem, items) };
    }
    case 'list': {
      const items = node.args.map((item) => estimate(item, scope));
      return { cost: LIST_CREATE_COST + sum(items.map((i) => i.cost)), size: items.length, literal: 'list' };
    }
    case 'map': {
      const entries = node.args.flatMap(([k, v]) => [estimate(k, scope), estimate(v, scope)]);
      return {
        cost: MAP_CREATE_COST + sum(entries.map((e) => e.cost)),
        size: node.args.length,
        literal: 'map',
      };
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
      // A negative number literal is one constant to cel-go's parser.
      if (node.op === '-_' && node.args.op === 'value') return { cost: 0, size: 1 };
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
      if (node.op === '==' || node.op === '!=' || (isTextual(left) && isTextual(right)))
        // Equality and ordering of strings, bytes and lists walk the shorter operand.
        opCost = node.op === '+' ? 1 : traversal(Math.min(left.size, right.size));
      if (node.op === '+') {
        size = left.size + right.size;
        opCost = isList(left) || isList(right) ? 1 : traversal(size);
      } else if (node.op === 'in') opCost = isMap(right) ? 1 : right.size;
      return { cost: left.cost + right.cost + opCost, size };
    }
  }
}

function isList(e: Estimate): boolean {
  return e.type?.kind === 'list' || e.literal === 'list';
}

function isMap(e: Estimate): boolean {
  return e.type?.kind === 'map' || e.type?.kind === 'object' || e.literal === 'map';
}

function isTextual(e: Estimate): boolean {
  return (
    (e.type?.kind === 'scalar' && (e.type.name === 'string' || e.type.name === 'bytes')) ||
    e.literal === 'string'
  );
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function estimateCall(name: string, target: ASTNode | undefined, args: ASTNode[], scope: Scope): Estimate {
  if (name === 'has' && target === undefined && args.length === 1 && args[0]!.op === '.') {
    // Kubernetes sets PresenceTestHasCost(false): a presence test costs only its operand.
    return { cost: estimate(args[0]!.args[0] as ASTNode, scope).cost, size: 1 };
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
              maxElements: MAP_KEY_SIZE,
              minSerializedSize: 2,
            }
          : undefined;
    const inner = new Map(scope);
    const twoVariables = TWO_VARIABLE.has(name) && args.length >= 3 && args[1]!.op === 'id';
    if (twoVariables) {
      const keyType: DeclType | undefined =
        receiver.type?.kind === 'list'
          ? { kind: 'scalar', name: 'int', maxElements: 0, minSerializedSize: 1 }
          : elemType;
      const valueType =
        receiver.type?.kind === 'list' || receiver.type?.kind === 'map' ? receiver.type.elem : undefined;
      inner.set(args[0]!.args as string, { type: keyType, values: undefined });
      inner.set(args[1]!.args as string, { type: valueType, values: elementValues(receiver.values) });
    } else inner.set(args[0]!.args as string, { type: elemType, values: iterationValues(receiver.values) });
    const bodies = args.slice(twoVariables ? 2 : 1);
    const body = sum(bodies.map((b) => estimate(b, inner).cost));
    // The macros' expansions (cel-go parser/macro.go): accumulator set-up and result, then per
    // element the loop condition and step around the body.
    const [setUp, perStep] = MACRO_COSTS[name]!;
    return {
      cost: receiver.cost + setUp + receiver.size * (body + perStep),
      size: receiver.size,
      ...(name === 'map' || name === 'filter' ? { literal: 'list' as const } : {}),
    };
  }
  const argEstimates = args.map((a) => estimate(a, scope));
  const argCost = (receiver?.cost ?? 0) + sum(argEstimates.map((a) => a.cost));
  const call = callEstimate(name, receiver, argEstimates);
  return { cost: argCost + call.cost, size: call.size, ...(call.literal ? { literal: call.literal } : {}) };
}

/** The size of the items of a list expression (strings and bytes only; others have none). */
function itemSize(list: Estimate): number | undefined {
  if (list.type?.kind !== 'list') return undefined;
  const elem = list.type.elem;
  if (elem.kind === 'scalar' && (elem.name === 'string' || elem.name === 'bytes')) {
    if (list.values === undefined) return elem.maxElements;
    let size = 0;
    for (const item of elementValues(list.values) ?? []) size = Math.max(size, jsonSize(item));
    return size;
  }
  return 0;
}

/**
 * The cost of a call itself, apart from its operands (cel-go's functionCost and Kubernetes'
 * library/cost.go), with the size of its result.
 */
function callEstimate(
  name: string,
  receiver: Estimate | undefined,
  args: Estimate[],
): { cost: number; size: number; literal?: 'string' | 'list' } {
  const subject = receiver ?? args[0];
  const subjectSize = subject?.size ?? 1;
  const last = args[args.length - 1];
  switch (name) {
    case 'matches':
    case 'find':
    case 'findAll':
      return {
        cost: traversal(subjectSize + 1) * Math.ceil((last?.size ?? 1) * REGEX_LENGTH_FACTOR),
        size: name === 'matches' ? 1 : subjectSize,
        ...(name === 'find' ? { literal: 'string' as const } : {}),
      };
    case 'startsWith':
    case 'endsWith':
      return { cost: traversal(last?.size ?? 1), size: 1 };
    case 'contains':
      return { cost: traversal(subjectSize) * traversal(last?.size ?? 1), size: 1 };
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
    case 'indexOf':
    case 'lastIndexOf': {
      if (receiver === undefined) break;
      const items = itemSize(receiver);
      if (items === undefined) return { cost: traversal(subjectSize), size: 1 };
      const size = name === 'min' || name === 'max' ? (items === 0 ? 0 : items) : 1;
      return { cost: subjectSize * (1 + traversal(items)), size };
    }
    case 'url':
      return { cost: traversal(subjectSize), size: 1 };
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      if (receiver === undefined) break;
      return { cost: traversal(subjectSize), size: subjectSize, literal: 'string' };
    case 'replace':
    case 'split':
      if (receiver === undefined) break;
      // upstream's replace() result size divides by the replaced text's minimum size, 0 for
      // any unbounded string, and comes out as 0; split's is the string's size.
      return name === 'replace'
        ? { cost: Math.ceil(subjectSize * 2 * TRAVERSAL_FACTOR), size: 0, literal: 'string' }
        : { cost: Math.ceil(subjectSize * 2 * TRAVERSAL_FACTOR), size: subjectSize, literal: 'list' };
    case 'join': {
      if (receiver === undefined) break;
      const items = itemSize(receiver) ?? 0;
      const separators = Math.max(0, subjectSize - 1) * (args[0]?.size ?? 0);
      const size = subjectSize * items + separators;
      return { cost: traversal(size), size, literal: 'string' };
    }
    case 'quote':
      return { cost: traversal(last?.size ?? 1), size: (last?.size ?? 0) * 2 + 2, literal: 'string' };
    case 'size':
      return { cost: 1, size: 1 };
  }
  return { cost: 1, size: 1 };
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

/**
 * The cost of evaluating `ast` with its variables bound to these JSON values (admission
 * expressions' `object`, `oldObject`, `params`, ...); unbound names count as unsized.
 */
export function estimateActualCostOf(ast: ASTNode, bindings: Readonly<Record<string, unknown>>): number {
  const scope = new Map<string, Binding>();
  for (const [name, value] of Object.entries(bindings))
    scope.set(name, { type: undefined, values: value === undefined || value === null ? [] : [value] });
  return estimate(ast, scope).cost;
}

/** How often a rule of a node with this type can run in one request when its ancestors are unbounded. */
export function maxCardinality(minSerializedSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1));
}
