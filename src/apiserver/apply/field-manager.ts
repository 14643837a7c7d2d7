// apimachinery's managedfields FieldManager with the default manager chain, for one kind at one
// API version: decode managedFields, (before the first apply) attribute existing fields to
// "before-first-apply", cap update managers at 10 ("ancient-changes"), build the manager
// identifier, stamp times, strip metadata fields no one owns, and run the structured merge.
// With the version check and the last-applied-configuration migration (last-applied.ts).
import type { ManagedFieldsEntry } from '../../api/object.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../patch/json-value.js';
import { fieldElement as f } from './fieldpath/path-element.js';
import { FieldSet } from './fieldpath/set.js';
import { allowedConflictsFromLastApplied, KUBECTL_MANAGER, updateLastApplied } from './last-applied.js';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  type Managed,
  managerIdentifier,
} from './managed-fields.js';
import { ApplyConflictError } from './merge/conflicts.js';
import { type ManagedFields, Updater, type UpdaterOptions } from './merge/updater.js';

export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';

// stripMetaManager's set: fields every object has that no manager should own.
const STRIPPED = FieldSet.of(
  [f('apiVersion')],
  [f('kind')],
  [f('metadata')],
  [f('metadata'), f('name')],
  [f('metadata'), f('namespace')],
  [f('metadata'), f('creationTimestamp')],
  [f('metadata'), f('selfLink')],
  [f('metadata'), f('uid')],
  [f('metadata'), f('clusterName')],
  [f('metadata'), f('generation')],
  [f('metadata'), f('managedFields')],
  [f('metadata'), f('resourceVersion')],
);

export interface FieldManagerOptions extends UpdaterOptions {
  /** The group/version objects are handled at (`apps/v1`, `v1`). */
  readonly apiVersion: string;
  /** The kind objects are handled as. */
  readonly kind: string;
  /** The subresource written through ("" for the main resource). */
  readonly subresource?: string;
  readonly now?: () => Date;
  readonly maxUpdateManagers?: number;
}

/** Thrown for an apply the manager refuses as a bad request (upstream's 400 texts). */
export class ApplyBadRequestError extends Error {}

function metadataOf(object: JsonObject): JsonObject | undefined {
  return isJsonObject(object.metadata) ? object.metadata : undefined;
}

function managedFieldsOf(object: JsonObject): ManagedFieldsEntry[] | undefined {
  const value = metadataOf(object)?.managedFields;
  return Array.isArray(value) ? (value as ManagedFieldsEntry[]) : undefined;
}

function withoutManagedFields(object: JsonObject): JsonObject {
  const metadata = metadataOf(object);
  if (!metadata || !('managedFields' in metadata)) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}

function withManagedFields(object: JsonObject, managed: Managed): JsonObject {
  const base = withoutManagedFields(object);
  const entries = encodeManagedFields(managed);
  if (!entries) return base;
  return {
    ...base,
    metadata: { ...(metadataOf(base) ?? {}), managedFields: entries as unknown as JsonValue },
  };
}

/** schema.GroupVersionKind's String() of an object's apiVersion and kind (`apps/v1, Kind=Deployment`). */
function groupVersionKindString(apiVersion: JsonValue | undefined, kind: JsonValue | undefined): string {
  const text = typeof apiVersion === 'string' ? apiVersion : '';
  const kindText = typeof kind === 'string' ? kind : '';
  const parts = text.split('/');
  // ParseGroupVersion: "" and "v1" are core versions; more than one slash is unparseable.
  if (text === '' || parts.length > 2) return `/, Kind=${kindText}`;
  const [group, version] = parts.length === 1 ? ['', text] : (parts as [string, string]);
  return `${group}/${version}, Kind=${kindText}`;
}

function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export class FieldManager {
  private readonly updater: Updater;
  private readonly subresource: string;

  constructor(private readonly options: FieldManagerOptions) {
    this.updater = new Updater(options);
    this.subresource = options.subresource ?? '';
  }

  private now(): string {
    return rfc3339((this.options.now ?? (() => new Date()))());
  }

  /**
   * FieldManager.Update: `manager` writes `newObject` over `liveObject` (an empty object on create).
   * Returns `newObject` with its managedFields set. Managed fields sent by the client win when
   * valid (main resource only); `[{}]` resets them.
   */
  update(liveObject: JsonObject, newObject: JsonObject, manager: string): JsonObject {
    let managed: Managed;
    const sent = managedFieldsOf(newObject);
    const live = managedFieldsOf(liveObject) ?? [];
    if (this.subresource === '' && isResetManagedFields(sent)) managed = emptyManaged();
    else {
      managed = this.decodeOrEmpty(this.subresource === '' ? (sent ?? []) : []);
      if (managed.fields.size === 0) managed = this.decodeOrEmpty(live);
    }
    const stripped = withoutManagedFields(newObject);
    // skipNonAppliedManager: an existing object nobody tracks stays untracked on update.
    if (managed.fields.size === 0 && metadataOf(liveObject)?.uid) return stripped;
    managed = this.trackedUpdate(withoutManagedFields(liveObject), stripped, managed, manager);
    return withManagedFields(stripped, managed);
  }

  /**
   * FieldManager.Apply: `manager` applies `appliedObject` to `liveObject` (an empty object on
   * create). Throws ApplyConflictError (409) or ApplyBadRequestError (400).
   */
  apply(liveObject: JsonObject, appliedObject: JsonObject, manager: string, force: boolean): JsonObject {
    // versionCheckManager: the patch must be of the handler's group, version and kind.
    const applied = groupVersionKindString(appliedObject.apiVersion, appliedObject.kind);
    if (applied !== groupVersionKindString(this.options.apiVersion, this.options.kind)) {
      throw new ApplyBadRequestError(`invalid object type: ${applied}`);
    }
    if (metadataOf(appliedObject)?.managedFields !== undefined) {
      throw new ApplyBadRequestError('metadata.managedFields must be nil');
    }
    let result: JsonObject;
    try {
      result = this.trackedApply(liveObject, appliedObject, manager, force);
    } catch (error) {
      // lastAppliedManager: kubectl may take over what client-side apply last set.
      if (manager !== KUBECTL_MANAGER || !(error instanceof ApplyConflictError)) throw error;
      const allowed = allowedConflictsFromLastApplied(
        liveObject,
        this.options.apiVersion,
        this.options.converter,
      );
      if (!allowed) throw error;
      const remaining = error.conflicts.filter((c) => !allowed.has(c.path));
      if (remaining.length > 0) throw new ApplyConflictError(remaining);
      result = this.trackedApply(liveObject, appliedObject, manager, true);
    }
    return manager === KUBECTL_MANAGER ? updateLastApplied(result, appliedObject) : result;
  }

  // skipNonApplied → capManagers → buildManagerInfo → managedFieldsUpdater → stripMeta → merge.
  private trackedApply(
    liveObject: JsonObject,
    appliedObject: JsonObject,
    manager: string,
    force: boolean,
  ): JsonObject {
    let managed = decodeManagedFields(managedFieldsOf(liveObject) ?? []);
    let live = withoutManagedFields(liveObject);
    if (managed.fields.size === 0) {
      // skipNonAppliedManager: what the object already holds belongs to "before-first-apply".
      const empty: JsonObject = {
        apiVersion: appliedObject.apiVersion as JsonValue,
        kind: appliedObject.kind as JsonValue,
      };
      managed = this.trackedUpdate(empty, live, managed, BEFORE_FIRST_APPLY);
    }
    const identifier = managerIdentifier({ manager, operation: 'Apply', subresource: this.subresource });
    const result = this.updater.apply(
      live,
      appliedObject,
      this.options.apiVersion,
      managed.fields,
      identifier,
      force,
    );
    this.stripMeta(result.managers, identifier);
    if (result.object !== undefined) managed.times.set(identifier, this.now());
    this.capUpdateManagers(managed);
    if (result.object === undefined) return withManagedFields(live, managed);
    live = result.object as JsonObject;
    return withManagedFields(live, managed);
  }

  private decodeOrEmpty(entries: readonly ManagedFieldsEntry[]): Managed {
    try {
      return decodeManagedFields(entries);
    } catch {
      return emptyManaged();
    }
  }

  // capManagers → buildManagerInfo → managedFieldsUpdater → stripMeta → structured merge.
  private trackedUpdate(
    liveObject: JsonObject,
    newObject: JsonObject,
    managed: Managed,
    manager: string,
  ): Managed {
    const identifier = managerIdentifier({
      manager,
      operation: 'Update',
      apiVersion: this.options.apiVersion,
      subresource: this.subresource,
    });
    const fields = managed.fields;
    this.updater.updateObject(liveObject, newObject, this.options.apiVersion, fields, CURRENT_OPERATION);
    this.stripMeta(fields, CURRENT_OPERATION);
    const current = fields.get(CURRENT_OPERATION);
    if (current) {
      fields.delete(CURRENT_OPERATION);
      const previous = fields.get(identifier);
      const set = previous ? current.set.union(previous.set) : current.set;
      // The same fields as before keep the same set object (its fieldsV1 encoding is cached).
      const unchanged = previous && previous.apiVersion === current.apiVersion && previous.set.equals(set);
      fields.set(identifier, unchanged ? { ...current, set: previous.set } : { ...current, set });
      managed.times.set(identifier, this.now());
    }
    this.capUpdateManagers(managed);
    return managed;
  }

  private stripMeta(fields: ManagedFields, manager: string): void {
    const versioned = fields.get(manager);
    if (!versioned) return;
    const set = versioned.set.difference(STRIPPED);
    if (set.empty()) fields.delete(manager);
    else if (!set.equals(versioned.set)) fields.set(manager, { ...versioned, set });
  }

  // capManagersManager: the oldest update managers beyond the cap merge into "ancient-changes".
  private capUpdateManagers(managed: Managed): void {
    const max = this.options.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS;
    const updaters = [...managed.fields].filter(([, v]) => !v.applied).map(([m]) => m);
    if (updaters.length <= max) return;
    const seconds = (m: string) => {
      const t = managed.times.get(m);
      return t ? Math.floor(Date.parse(t) / 1000) : 0;
    };
    updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
    const firstByVersion = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > max; i++) {
      const manager = updaters[i] as string;
      const versioned = managed.fields.get(manager);
      if (!versioned) continue;
      const time = managed.times.get(manager);
      const bucket = managerIdentifier({
        manager: ANCIENT_CHANGES,
        operation: 'Update',
        apiVersion: versioned.apiVersion,
      });
      const first = firstByVersion.get(versioned.apiVersion);
      if (first === undefined) {
        firstByVersion.set(versioned.apiVersion, manager);
        continue;
      }
      if (!managed.fields.has(bucket)) {
        const moved = managed.fields.get(first);
        managed.fields.delete(first);
        if (moved) managed.fields.set(bucket, moved);
      }
      const bucketSet = managed.fields.get(bucket)?.set ?? new FieldSet();
      managed.fields.set(bucket, { ...versioned, set: versioned.set.union(bucketSet) });
      managed.fields.delete(manager);
      length--;
      managed.times.set(bucket, time);
    }
  }
}
