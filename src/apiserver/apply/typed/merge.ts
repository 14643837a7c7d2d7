// structured-merge-diff's merging walker (typed/merge.go): walks two values of one type together.
// Leaves — scalars, atomic lists and maps, and lists or maps empty on both sides — go to `rule`;
// every other node to `postItemHook`. Associative lists merge item by item, in an order that keeps
// the right-hand side's order and places left-only items where they were (visitListItems).
import { isJsonObject, type JsonObject, type JsonValue } from '../../patch/json-value.js';
import {
  fieldElement,
  type PathElement,
  pathElementsEqual,
  pathToString,
} from '../fieldpath/path-element.js';
import { compareValues } from '../fieldpath/value-order.js';
import { listItemElement } from './list-items.js';
import {
  type Atom,
  atomFor,
  fieldType,
  type ListType,
  type MapType,
  type SchemaType,
  TypedValueError,
} from './schema.js';

/** One node of the walk; `undefined` is an absent value (Go's nil), `null` a JSON null. */
export interface MergeNode {
  lhs: JsonValue | undefined;
  rhs: JsonValue | undefined;
  readonly path: readonly PathElement[];
  out: JsonValue | undefined;
  inLeaf: boolean;
}

export type MergeRule = (node: MergeNode) => void;

/** ruleKeepRHS: the right-hand value wins at every leaf. */
export const keepRight: MergeRule = (node) => {
  node.out = node.rhs !== undefined ? node.rhs : node.lhs;
};

/** Walks `lhs` and `rhs`; throws TypedValueError with upstream's texts when either is invalid. */
export function mergeValues(
  type: SchemaType,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  rule: MergeRule,
  postItemHook?: MergeRule,
  skipIdentical = false,
): JsonValue | undefined {
  const walker = new MergingWalker(rule, postItemHook, skipIdentical);
  const node: MergeNode = { lhs, rhs, path: [], out: undefined, inLeaf: false };
  walker.merge(type, node);
  if (walker.errors.length === 1) throw new TypedValueError(walker.errors[0]);
  if (walker.errors.length > 1)
    throw new TypedValueError(['errors:', ...walker.errors.map((e) => `  ${e}`)].join('\n'));
  return node.out;
}

function sameAtom(a: Atom, b: Atom): boolean {
  return a === b || (a.kind === b.kind && a.kind === 'scalar');
}

class MergingWalker {
  readonly errors: string[] = [];

  constructor(
    private readonly rule: MergeRule,
    private readonly postItemHook: MergeRule | undefined,
    // For walks that only look for differences: the same value on both sides (one stored subtree
    // carried into the new object, as a status write carries the spec) has none below it.
    private readonly skipIdentical: boolean,
  ) {}

  merge(type: SchemaType, node: MergeNode): void {
    if (this.skipIdentical && node.lhs === node.rhs && node.lhs !== undefined) return;
    const left = atomFor(type, node.lhs);
    const right = atomFor(type, node.rhs);
    if (node.rhs === undefined) this.handle(left, node);
    else if (node.lhs === undefined || sameAtom(left, right)) this.handle(right, node);
    else {
      // The value changed shape (only untyped values can): walk the old shape for its effects.
      this.handle(left, { ...node });
      this.handle(right, node);
    }
    if (!node.inLeaf && this.postItemHook) this.postItemHook(node);
  }

  private error(node: MergeNode, message: string): void {
    const prefix = pathToString(node.path);
    this.errors.push(prefix ? `${prefix}: ${message}` : message);
  }

  private handle(atom: Atom, node: MergeNode): void {
    if (atom.kind === 'scalar') this.leaf(node);
    else if (atom.kind === 'list') this.list(atom, node);
    else this.map(atom, node);
  }

  private leaf(node: MergeNode): void {
    if (node.inLeaf) return;
    node.inLeaf = true;
    this.rule(node);
  }

  private list(type: ListType, node: MergeNode): void {
    const lhs = Array.isArray(node.lhs) ? node.lhs : undefined;
    const rhs = Array.isArray(node.rhs) ? node.rhs : undefined;
    const emptyBoth = (!lhs || lhs.length === 0) && (!rhs || rhs.length === 0);
    if (type.relationship === 'atomic' || emptyBoth) {
      this.leaf(node);
      return;
    }
    if (!lhs && !rhs) return;
    this.listItems(type, node, lhs ?? [], rhs ?? []);
  }

  private index(
    type: ListType,
    node: MergeNode,
    list: JsonValue[],
  ): { order: PathElement[]; items: Map<string, JsonValue> } {
    const order: PathElement[] = [];
    const items = new Map<string, JsonValue>();
    list.forEach((item, i) => {
      let pe: PathElement;
      try {
        pe = listItemElement(type, i, item);
      } catch (error) {
        this.error(node, `element ${i}: ${(error as Error).message}`);
        return;
      }
      const id = elementId(pe);
      if (items.has(id)) {
        this.error(node, `duplicate entries for key ${pathToString([pe])}`);
        return;
      }
      items.set(id, item);
      order.push(pe);
    });
    return { order, items };
  }

  private listItems(type: ListType, node: MergeNode, lhsList: JsonValue[], rhsList: JsonValue[]): void {
    const out: JsonValue[] = [];
    const right = this.index(type, node, rhsList);
    const left = this.index(type, node, lhsList);
    const shared = right.order.filter((pe) => left.items.has(elementId(pe)));
    let sharedAt = 0;
    let nextShared: PathElement | undefined = shared[sharedAt++];
    const advanceShared = () => {
      nextShared = sharedAt < shared.length ? shared[sharedAt++] : undefined;
    };
    const lLen = left.order.length;
    const rLen = right.order.length;
    for (let lI = 0, rI = 0; lI < lLen || rI < rLen; ) {
      if (lI < lLen && rI < rLen) {
        const pe = left.order[lI] as PathElement;
        if (pathElementsEqual(pe, right.order[rI] as PathElement)) {
          this.item(type, node, pe, left.items.get(elementId(pe)), right.items.get(elementId(pe)), out);
          lI++;
          rI++;
          advanceShared();
          continue;
        }
        if (right.items.has(elementId(pe)) && nextShared && !pathElementsEqual(nextShared, pe)) {
          lI++;
          continue;
        }
      }
      if (lI < lLen) {
        const pe = left.order[lI] as PathElement;
        if (!right.items.has(elementId(pe))) {
          this.item(type, node, pe, left.items.get(elementId(pe)), undefined, out);
          lI++;
          continue;
        }
      }
      if (rI < rLen) {
        const pe = right.order[rI] as PathElement;
        this.item(type, node, pe, left.items.get(elementId(pe)), right.items.get(elementId(pe)), out);
        rI++;
        if (nextShared && pathElementsEqual(nextShared, pe)) advanceShared();
      }
    }
    if (out.length > 0) node.out = out;
  }

  private item(
    type: ListType,
    node: MergeNode,
    pe: PathElement,
    lhs: JsonValue | undefined,
    rhs: JsonValue | undefined,
    out: JsonValue[],
  ): void {
    const child: MergeNode = { lhs, rhs, path: [...node.path, pe], out: undefined, inLeaf: node.inLeaf };
    this.merge(type.element, child);
    if (child.out !== undefined) out.push(child.out);
  }

  private map(type: MapType, node: MergeNode): void {
    const lhs = isJsonObject(node.lhs) ? node.lhs : undefined;
    const rhs = isJsonObject(node.rhs) ? node.rhs : undefined;
    const emptyBoth = (!lhs || isEmptyObject(lhs)) && (!rhs || isEmptyObject(rhs));
    if (type.relationship === 'atomic' || emptyBoth) {
      this.leaf(node);
      return;
    }
    if (!lhs && !rhs) return;
    const out: JsonObject = {};
    let written = false;
    // Left keys in order, then right keys the left lacks (one side absent: its keys only).
    const keys = !lhs ? Object.keys(rhs as JsonObject) : !rhs ? Object.keys(lhs) : unionKeys(lhs, rhs);
    for (const key of keys) {
      const child: MergeNode = {
        lhs: lhs && Object.hasOwn(lhs, key) ? (lhs[key] as JsonValue) : undefined,
        rhs: rhs && Object.hasOwn(rhs, key) ? (rhs[key] as JsonValue) : undefined,
        path: [...node.path, fieldElement(key)],
        out: undefined,
        inLeaf: node.inLeaf,
      };
      const childType = fieldType(type, key);
      if (!childType) {
        this.error(child, 'schema error: invalid atom: inlined');
        continue;
      }
      this.merge(childType, child);
      if (child.out !== undefined) {
        out[key] = child.out;
        written = true;
      }
    }
    if (written) node.out = out;
  }
}

function isEmptyObject(object: JsonObject): boolean {
  for (const _key in object) return false;
  return true;
}

function unionKeys(lhs: JsonObject, rhs: JsonObject): string[] {
  const keys = Object.keys(lhs);
  for (const key of Object.keys(rhs)) if (!Object.hasOwn(lhs, key)) keys.push(key);
  return keys;
}

// Ids by element: the list walk asks for an item's id several times.
const elementIds = new WeakMap<PathElement, string>();

/** A string identity for a path element, for lookups (equal elements give equal ids). */
export function elementId(pe: PathElement): string {
  if (pe.kind === 'field') return `f${pe.name}`;
  let id = elementIds.get(pe);
  if (id === undefined) {
    id = computeElementId(pe);
    elementIds.set(pe, id);
  }
  return id;
}

function computeElementId(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f${pe.name}`;
    case 'index':
      return `i${pe.index}`;
    case 'value':
      return `v${canonical(pe.value)}`;
    case 'key':
      return `k${pe.fields.map((f) => `${JSON.stringify(f.name)}=${canonical(f.value)}`).join(',')}`;
  }
}

// Values equal under compareValues (1 and 1.0 included) give the same text.
function canonical(value: JsonValue): string {
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k] as JsonValue)}`)
      .join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return JSON.stringify(value);
}

/** value.Equals over decoded JSON. */
export function valuesEqual(a: JsonValue, b: JsonValue): boolean {
  return compareValues(a, b) === 0;
}
