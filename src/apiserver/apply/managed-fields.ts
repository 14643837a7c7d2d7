// apimachinery's managedfields/internal managedfields.go: `metadata.managedFields` entries read
// into manager field sets keyed by manager identifier, and written back in upstream's order.
import type { ManagedFieldsEntry } from '../../api/object.js';
import { compareGoStrings } from '../../api/selectors/go-text.js';
import type { JsonObject } from '../patch/json-value.js';
import { fieldsV1ToSet, setToFieldsV1 } from './fieldpath/fields-v1.js';
import type { FieldSet } from './fieldpath/set.js';
import { goJsonString } from './fieldpath/value-order.js';
import type { ManagedFields } from './merge/updater.js';

/** Manager fields plus when each manager last wrote (RFC 3339, seconds). */
export interface Managed {
  readonly fields: ManagedFields;
  readonly times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** Thrown for entries upstream's DecodeManagedFields refuses. */
export class ManagedFieldsError extends Error {}

/**
 * BuildManagerIdentifier: the entry's JSON without fields and time (and without apiVersion for
 * Apply), keys in ManagedFieldsEntry's field order.
 */
export function managerIdentifier(
  entry: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  const parts: string[] = [];
  if (entry.manager) parts.push(`"manager":${goJsonString(entry.manager)}`);
  if (entry.operation) parts.push(`"operation":${goJsonString(entry.operation)}`);
  if (entry.apiVersion && entry.operation !== 'Apply')
    parts.push(`"apiVersion":${goJsonString(entry.apiVersion)}`);
  if (entry.subresource) parts.push(`"subresource":${goJsonString(entry.subresource)}`);
  return `{${parts.join(',')}}`;
}

// Decoded sets by their fieldsV1 JSON text. Objects of one shape carry the same sets (every pod of
// a ReplicaSet, every status the kubelet writes), and stored objects are parsed afresh on each
// read, so the text is the key; sets are never mutated once built, so sharing them is safe.
const DECODED_LIMIT = 1024;
const decoded = new Map<string, FieldSet>();
// The fieldsV1 objects this process encoded, by set: an unchanged set is not re-encoded.
const encoded = new WeakMap<FieldSet, JsonObject>();

function decodeFieldsV1(fieldsV1: unknown): FieldSet {
  const text = JSON.stringify(fieldsV1);
  const known = decoded.get(text);
  if (known) return known;
  let set: FieldSet;
  try {
    set = fieldsV1ToSet(fieldsV1);
  } catch (error) {
    throw new ManagedFieldsError(
      `error decoding versioned set: error decoding set: ${(error as Error).message}`,
    );
  }
  if (decoded.size >= DECODED_LIMIT) decoded.clear();
  decoded.set(text, set);
  return set;
}

function encodeFieldsV1(set: FieldSet): JsonObject {
  let fieldsV1 = encoded.get(set);
  if (!fieldsV1) {
    fieldsV1 = setToFieldsV1(set);
    encoded.set(set, fieldsV1);
  }
  return fieldsV1;
}

/** DecodeManagedFields. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[]): Managed {
  const managed = emptyManaged();
  entries.forEach((entry, i) => {
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    }
    if (!entry.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (!entry.fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') {
      throw new ManagedFieldsError(`invalid fieldsType "${entry.fieldsType}" in managed fields entry ${i}`);
    }
    const identifier = managerIdentifier(entry);
    const set = decodeFieldsV1(entry.fieldsV1 ?? {});
    managed.fields.set(identifier, {
      set,
      apiVersion: entry.apiVersion,
      applied: entry.operation === 'Apply',
    });
    managed.times.set(identifier, entry.time);
  });
  return managed;
}

/** isResetManagedFields: `[]` or `[{}]` sent by a client clears every entry. */
export function isResetManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (!entries) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && Object.keys(entries[0] ?? {}).length === 0;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** encodeManagedFields: undefined when no manager is left (the field is then omitted). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [identifier, versioned] of managed.fields) {
    const parsed = JSON.parse(identifier) as ManagedFieldsEntry;
    const entry: ManagedFieldsEntry = {};
    if (parsed.manager) entry.manager = parsed.manager;
    const operation = versioned.applied ? 'Apply' : parsed.operation;
    if (operation) entry.operation = operation;
    entry.apiVersion = versioned.apiVersion;
    const time = managed.times.get(identifier);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = encodeFieldsV1(versioned.set);
    if (parsed.subresource) entry.subresource = parsed.subresource;
    entries.push(entry);
  }
  return entries.sort(
    (p, q) =>
      compareGoStrings(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      compareGoStrings(p.manager ?? '', q.manager ?? '') ||
      compareGoStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareGoStrings(p.subresource ?? '', q.subresource ?? ''),
  );
}
