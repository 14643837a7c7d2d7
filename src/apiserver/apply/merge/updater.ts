// structured-merge-diff's merge.Updater (merge/update.go): Apply and Update over typed values and
// the managers' field sets. Apply merges the configuration into the live object, removes what the
// applier owned before and no longer sets (unless someone else owns it), and refuses changes to
// fields others own unless forced; Update gives the updater what it changed and takes changed
// fields from everyone else.
import type { JsonValue } from '../../patch/json-value.js';
import { FieldSet } from '../fieldpath/set.js';
import { type Comparison, compareTyped, excludeFields, isSame } from '../typed/compare.js';
import { ensureNamedFieldsAreMembers } from '../typed/ensure-named-fields.js';
import { keepRight, mergeValues } from '../typed/merge.js';
import { reconcileFieldSetWithSchema } from '../typed/reconcile-schema.js';
import { removeItems } from '../typed/remove.js';
import type { SchemaType } from '../typed/schema.js';
import { toFieldSet } from '../typed/to-field-set.js';
import { ApplyConflictError, conflictsFromManagers } from './conflicts.js';

/** fieldpath.VersionedSet. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** fieldpath.ManagedFields: manager identifier → its fields. */
export type ManagedFields = Map<string, VersionedSet>;

/**
 * How the updater sees an object at another API version (merge.Converter). `convert` returns
 * undefined for a version the type no longer has (IsMissingVersionError: that manager is dropped).
 */
export interface VersionConverter {
  typeAt(version: string): SchemaType | undefined;
  convert(value: JsonValue, version: string): JsonValue | undefined;
}

/** A converter for kinds whose versions share one schema (a single served version, or CRDs with `conversion: None`). */
export function sameSchemaConverter(type: SchemaType): VersionConverter {
  return { typeAt: () => type, convert: (value) => value };
}

// Reconciliation results by set and type: managers' sets come back unchanged write after write
// (decoded sets are shared), and a set only needs reconciling once per schema.
const reconciliations = new WeakMap<FieldSet, WeakMap<SchemaType, FieldSet | null>>();

function reconciledSet(set: FieldSet, type: SchemaType): FieldSet | undefined {
  let byType = reconciliations.get(set);
  if (!byType) {
    byType = new WeakMap();
    reconciliations.set(set, byType);
  }
  let reconciled = byType.get(type);
  if (reconciled === undefined) {
    reconciled = reconcileFieldSetWithSchema(set, type) ?? null;
    byType.set(type, reconciled);
  }
  return reconciled ?? undefined;
}

export interface UpdaterOptions {
  readonly converter: VersionConverter;
  /** Fields not tracked per version (a strategy's reset fields, e.g. `status` on the main resource). */
  readonly ignoredFields?: ReadonlyMap<string, FieldSet>;
}

export interface UpdateResult {
  /** The new object; undefined from Apply when it changes nothing. */
  readonly object: JsonValue | undefined;
  readonly managers: ManagedFields;
}

export class Updater {
  constructor(private readonly options: UpdaterOptions) {}

  private type(version: string): SchemaType {
    const type = this.options.converter.typeAt(version);
    if (!type) throw new Error(`no schema for version ${version}`);
    return type;
  }

  private update(
    oldObject: JsonValue,
    newObject: JsonValue,
    version: string,
    managers: ManagedFields,
    workflow: string,
    force: boolean,
  ): Comparison {
    const { converter, ignoredFields } = this.options;
    const compare = excludeFields(
      compareTyped(this.type(version), oldObject, newObject),
      ignoredFields?.get(version),
    );
    const versions = new Map<string, Comparison>([[version, compare]]);
    const conflicts = new Map<string, FieldSet>();
    const removed = new Map<string, FieldSet>();
    for (const [manager, managerSet] of [...managers]) {
      if (manager === workflow) continue;
      let versioned = versions.get(managerSet.apiVersion);
      if (!versioned) {
        const oldAt = converter.convert(oldObject, managerSet.apiVersion);
        const newAt = converter.convert(newObject, managerSet.apiVersion);
        const typeAt = converter.typeAt(managerSet.apiVersion);
        if (oldAt === undefined || newAt === undefined || !typeAt) {
          managers.delete(manager);
          continue;
        }
        versioned = excludeFields(
          compareTyped(typeAt, oldAt, newAt),
          ignoredFields?.get(managerSet.apiVersion),
        );
        versions.set(managerSet.apiVersion, versioned);
      }
      const conflictSet = managerSet.set.intersection(versioned.modified.union(versioned.added));
      if (!conflictSet.empty()) conflicts.set(manager, conflictSet);
      if (!versioned.removed.empty()) removed.set(manager, versioned.removed);
    }
    if (!force && conflicts.size > 0) throw new ApplyConflictError(conflictsFromManagers(conflicts));
    for (const source of [conflicts, removed]) {
      for (const [manager, set] of source) {
        const current = managers.get(manager);
        if (current) managers.set(manager, { ...current, set: current.set.difference(set) });
      }
    }
    for (const [manager, managerSet] of [...managers]) if (managerSet.set.empty()) managers.delete(manager);
    return compare;
  }

  // reconcileManagedFieldsWithSchemaChanges: sets recorded before a list or map became atomic
  // own it whole; managers of versions the object no longer has are dropped.
  private reconcile(liveObject: JsonValue, managers: ManagedFields): void {
    for (const [manager, versioned] of [...managers]) {
      const type = this.options.converter.typeAt(versioned.apiVersion);
      if (!type || this.options.converter.convert(liveObject, versioned.apiVersion) === undefined) {
        managers.delete(manager);
        continue;
      }
      const reconciled = reconciledSet(versioned.set, type);
      if (reconciled) managers.set(manager, { ...versioned, set: reconciled });
    }
  }

  /** Updater.Update: `manager` wrote `newObject` over `liveObject` at `version`. */
  updateObject(
    liveObject: JsonValue,
    newObject: JsonValue,
    version: string,
    managers: ManagedFields,
    manager: string,
  ): UpdateResult {
    this.reconcile(liveObject, managers);
    const compare = this.update(liveObject, newObject, version, managers, manager, true);
    const previous = managers.get(manager)?.set ?? new FieldSet();
    const ignored = this.options.ignoredFields?.get(version) ?? new FieldSet();
    const set = previous
      .union(compare.modified)
      .union(compare.added)
      .difference(compare.removed)
      .recursiveDifference(ignored);
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { set, apiVersion: version, applied: false });
    return { object: newObject, managers };
  }

  /** Updater.Apply: `manager` applies `configObject` to `liveObject` at `version`. */
  apply(
    liveObject: JsonValue,
    configObject: JsonValue,
    version: string,
    managers: ManagedFields,
    manager: string,
    force: boolean,
  ): UpdateResult {
    this.reconcile(liveObject, managers);
    const type = this.type(version);
    // The configuration's field set first: it is the typed patch object's validation (fields not
    // declared in the schema, bad list keys), which upstream runs before merging.
    let set = toFieldSet(type, configObject);
    let newObject = mergeValues(type, liveObject, configObject, keepRight) ?? null;
    const lastSet = managers.get(manager);
    const ignored = this.options.ignoredFields?.get(version);
    if (ignored) set = set.recursiveDifference(ignored);
    managers.set(manager, { set, apiVersion: version, applied: true });
    newObject = this.prune(newObject, managers, manager, lastSet);
    const compare = this.update(liveObject, newObject, version, managers, manager, force);
    return { object: isSame(compare) ? undefined : newObject, managers };
  }

  // Removes what the applier set last time and no longer does, keeping what others own and what
  // was never the applier's (prune, addBackOwnedItems, addBackDanglingItems).
  private prune(
    merged: JsonValue,
    managers: ManagedFields,
    applier: string,
    lastSet: VersionedSet | undefined,
  ): JsonValue {
    if (!lastSet || lastSet.set.empty()) return merged;
    const { converter } = this.options;
    const lastType = converter.typeAt(lastSet.apiVersion);
    const convertedMerged = converter.convert(merged, lastSet.apiVersion);
    if (convertedMerged === undefined || !lastType) return merged;
    let pruned = removeItems(lastType, convertedMerged, ensureNamedFieldsAreMembers(lastSet.set, lastType));
    pruned = this.addBackOwnedItems(convertedMerged, pruned, lastSet.apiVersion, managers);
    pruned = this.addBackDanglingItems(convertedMerged, pruned, lastSet, lastType);
    const applierVersion = managers.get(applier)?.apiVersion ?? lastSet.apiVersion;
    return converter.convert(pruned, applierVersion) ?? pruned;
  }

  private addBackOwnedItems(
    merged: JsonValue,
    pruned: JsonValue,
    prunedVersion: string,
    managers: ManagedFields,
  ): JsonValue {
    const managedAtVersion = new Map<string, FieldSet>();
    for (const managerSet of managers.values()) {
      const current = managedAtVersion.get(managerSet.apiVersion) ?? new FieldSet();
      managedAtVersion.set(managerSet.apiVersion, current.union(managerSet.set));
    }
    const order = [...managedAtVersion.keys()].sort((a, b) =>
      a === prunedVersion ? -1 : b === prunedVersion ? 1 : 0,
    );
    let mergedNow = merged;
    let prunedNow = pruned;
    for (const version of order) {
      const { converter } = this.options;
      const type = converter.typeAt(version);
      const mergedAt = converter.convert(mergedNow, version);
      const prunedAt = converter.convert(prunedNow, version);
      if (!type || mergedAt === undefined || prunedAt === undefined) continue;
      const managed = managedAtVersion.get(version) as FieldSet;
      const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(type, mergedAt), type);
      const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(type, prunedAt), type);
      const keep = prunedSet.union(ensureNamedFieldsAreMembers(managed, type));
      mergedNow = mergedAt;
      prunedNow = removeItems(type, mergedAt, mergedSet.difference(keep));
    }
    return prunedNow;
  }

  private addBackDanglingItems(
    merged: JsonValue,
    pruned: JsonValue,
    lastSet: VersionedSet,
    type: SchemaType,
  ): JsonValue {
    const convertedPruned = this.options.converter.convert(pruned, lastSet.apiVersion);
    if (convertedPruned === undefined) return merged;
    const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(type, convertedPruned), type);
    const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(type, merged), type);
    const last = ensureNamedFieldsAreMembers(lastSet.set, type);
    return removeItems(type, merged, mergedSet.difference(prunedSet).intersection(last));
  }
}
