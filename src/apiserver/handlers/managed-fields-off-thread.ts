// The field manager Update of a big object of a built-in kind (a big create, or any write of an
// object that is big once stored: a status patch of a 15,000-env-var pod decodes and rebuilds all
// its managedFields), run on the field manager's thread (apply/field-manager-thread.ts) so the
// event loop keeps serving other requests meanwhile. Same answer as managedFieldsUpdater: the
// same FieldManager on the same live and new objects. Also a big create's validation and storage
// encoding, and the measure of a stored text over etcd's limit in JSON (its protobuf size decides).
import { LARGE_OBJECT_BYTES } from '../../api/large-objects.js';
import type { KubeObject, ManagedFieldsEntry } from '../../api/object.js';
import type { FieldManagerThread } from '../apply/field-manager-thread.js';
import { builtinType } from '../apply/typed/builtin-types.js';
import type { CreateCheck, CreateCheckRequest } from '../registry/create-check.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { managedFieldsUpdater } from './apply-patch.js';
import { resetFieldVersions } from './apply-versions.js';

/** `liveBytes`: the size of the live object's stored text (none on a create). */
type Updater = (live: KubeObject, next: KubeObject, liveBytes?: number) => KubeObject | Promise<KubeObject>;

/** Whether every managedFields entry the object holds is at `apiVersion` (the thread converts none). */
function entriesAt(object: KubeObject, apiVersion: string): boolean {
  const entries: unknown = object.metadata?.managedFields;
  if (entries === undefined || entries === null) return true;
  return (
    Array.isArray(entries) &&
    entries.every(
      (entry: unknown) =>
        typeof entry === 'object' &&
        entry !== null &&
        (entry as ManagedFieldsEntry).apiVersion === apiVersion,
    )
  );
}

/**
 * A write's managedFields updater (create, update, non-apply patch of the main resource or its
 * status): on the thread when the body or the live object is big and the kind built-in, else
 * (and whenever the thread fails) managedFieldsUpdater's on this thread.
 */
export function offThreadManagedFieldsUpdater(
  resources: ResourceStore,
  subresource: string,
  manager: string,
  bodyBytes: number,
  thread: FieldManagerThread | undefined,
): Updater | undefined {
  const onThisThread = managedFieldsUpdater(resources, subresource, manager);
  const { info } = resources;
  if (!onThisThread || !thread || resources.custom) return onThisThread;
  if (!builtinType(info.group, info.version, info.kind)) return onThisThread;
  const apiVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  // fieldManagerFor's reset fields: the main resource does not track status, the status
  // subresource only status.
  const reset =
    subresource === 'status'
      ? 'spec'
      : info.subresources.some((s) => s.name === 'status')
        ? 'status'
        : undefined;
  const resetFields = reset && resetFieldVersions(resources).includes(apiVersion) ? [reset] : [];
  return async (live, next, liveBytes = 0) => {
    if (Math.max(bodyBytes, liveBytes) < LARGE_OBJECT_BYTES) return onThisThread(live, next);
    // Entries recorded at another version need the version converter of this thread.
    if (!entriesAt(live, apiVersion) || !entriesAt(next, apiVersion)) return onThisThread(live, next);
    let entries: ManagedFieldsEntry[] | undefined;
    try {
      entries = await thread.update({
        group: info.group,
        version: info.version,
        kind: info.kind,
        subresource,
        resetFields,
        manager,
        object: JSON.stringify(next),
        ...(liveBytes > 0 ? { live: JSON.stringify(live) } : {}),
      });
    } catch {
      // The thread failed or stopped: the same Update here.
      return onThisThread(live, next);
    }
    const { managedFields: _replaced, ...metadata } = next.metadata ?? {};
    return { ...next, metadata: entries ? { ...metadata, managedFields: entries } : metadata };
  };
}

/**
 * A big create's measure of a stored text over etcd's limit in JSON, on the field manager's
 * thread (ResourceStore measures it on the event loop without one).
 */
export function storedSizeMeasure(
  bodyBytes: number,
  thread: FieldManagerThread | undefined,
): ((text: string) => Promise<number>) | undefined {
  if (!thread || bodyBytes < LARGE_OBJECT_BYTES) return undefined;
  return (text) => thread.storedSize(text);
}

/** A big create's validation and storage encoding (registry/create-check.ts) on the field manager's thread. */
export function createCheckOffThread(
  bodyBytes: number,
  thread: FieldManagerThread | undefined,
): ((request: CreateCheckRequest) => Promise<CreateCheck>) | undefined {
  if (!thread || bodyBytes < LARGE_OBJECT_BYTES) return undefined;
  return (request) => thread.checkCreate(request);
}
