// The `fieldsV1` encoding of a field set (structured-merge-diff's serialize.go, read back as
// apimachinery's FieldsToSet does): each path element a key, `{}` for a member, `".": {}` first
// inside an element that is both a member and has children, keys in the set's order.
import { isJsonObject, type JsonObject } from '../../patch/json-value.js';
import {
  comparePathElements as comparePe,
  deserializePathElement,
  type PathElement,
  serializePathElement,
  UnknownPathElementTypeError,
} from './path-element.js';
import { FieldSet } from './set.js';
import { goJsonString } from './value-order.js';

// Builds the JSON object in upstream's key order; JavaScript keeps string keys in insertion order
// (no key here looks like an array index: every one starts with a prefix or is ".").
function contents(set: FieldSet, includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  if (includeSelf && (set.members.length > 0 || set.children.length > 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  const members = set.members;
  const children = set.children;
  while (mi < members.length || ci < children.length) {
    const member = members[mi];
    const node = children[ci];
    let c: number;
    if (member === undefined) c = 1;
    else if (node === undefined) c = -1;
    else c = comparePe(member, node.element);
    if (c < 0) {
      out[serializePathElement(member as PathElement)] = {};
      mi++;
    } else if (c > 0) {
      out[serializePathElement((node as { element: PathElement }).element)] = contents(
        (node as { set: FieldSet }).set,
        false,
      );
      ci++;
    } else {
      out[serializePathElement(member as PathElement)] = contents((node as { set: FieldSet }).set, true);
      mi++;
      ci++;
    }
  }
  return out;
}

/** Set.ToJSON as a JSON object (what `metadata.managedFields[].fieldsV1` holds). */
export function setToFieldsV1(set: FieldSet): JsonObject {
  return contents(set, false);
}

/** Set.ToJSON's exact bytes (jsoniter, HTML-safe escapes). */
export function setToFieldsV1Json(set: FieldSet): string {
  return objectJson(setToFieldsV1(set));
}

function objectJson(object: JsonObject): string {
  const parts = Object.entries(object).map(([k, v]) => `${goJsonString(k)}:${objectJson(v as JsonObject)}`);
  return `{${parts.join(',')}}`;
}

/** Thrown when a fieldsV1 value is not a set upstream can read. */
export class FieldsV1Error extends Error {}

// readIterV1: returns the children read (undefined when none) and whether the node is a member.
function read(value: unknown): { children: FieldSet | undefined; isMember: boolean } {
  if (!isJsonObject(value)) throw new FieldsV1Error('ReadMapCB: expect { or n, but found something else');
  let children: FieldSet | undefined;
  let isMember = false;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement;
    try {
      pe = deserializePathElement(key);
    } catch (error) {
      if (error instanceof UnknownPathElementTypeError) continue;
      throw new FieldsV1Error(`parsing key as path element: ${(error as Error).message}`);
    }
    const grand = read(inner);
    if (grand.isMember) {
      children ??= new FieldSet();
      children.insertMember(pe);
    }
    if (grand.children) {
      children ??= new FieldSet();
      children.descend(pe).absorb(grand.children);
    }
  }
  if (!children) isMember = true;
  return { children, isMember };
}

/** FieldsToSet over a parsed fieldsV1 object. */
export function fieldsV1ToSet(fieldsV1: unknown): FieldSet {
  return read(fieldsV1).children ?? new FieldSet();
}

/** FieldsToSet over raw JSON text. */
export function fieldsV1JsonToSet(text: string): FieldSet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FieldsV1Error((error as Error).message);
  }
  return fieldsV1ToSet(parsed);
}
