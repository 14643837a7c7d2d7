// The create handler's field manager Update for a big object of a built-in kind, run on the
// field manager's thread (apply/field-manager-thread.ts) so the event loop keeps serving other
// requests meanwhile. Same answer as managedFieldsUpdater: the same FieldManager, and on a first
// write (nothing tracked yet) its result depends on the object alone. Also the measure of such a
// create's stored text when it is over etcd's limit in JSON (its protobuf size decides).
import type { KubeObject, ManagedFieldsEntry } from '../../api/object.js';
import type { FieldManagerThread } from '../apply/field-manager-thread.js';
import { builtinType } from '../apply/typed/builtin-types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { managedFieldsUpdater } from './apply-patch.js';
import { resetFieldVersions } from './apply-versions.js';

/**
 * A request body from this size on has its field manager Update run off the event loop. Below it
 * the Update takes a few milliseconds (about 25 µs per list item), less than passing the object.
 */
export const OFF_THREAD_BODY_BYTES = 128 * 1024;

type Updater = (live: KubeObject, next: KubeObject) => KubeObject | Promise<KubeObject>;

/**
 * The create's managedFields updater: on the thread when the body is big and the kind built-in,
 * else (and whenever the thread fails) managedFieldsUpdater's on this thread.
 */
export function createManagedFieldsUpdater(
  resources: ResourceStore,
  manager: string,
  bodyBytes: number,
  thread: FieldManagerThread | undefined,
): Updater | undefined {
  const onThisThread = managedFieldsUpdater(resources, '', manager);
  const { info } = resources;
  if (!onThisThread || !thread || bodyBytes < OFF_THREAD_BODY_BYTES || resources.custom) return onThisThread;
  if (!builtinType(info.group, info.version, info.kind)) return onThisThread;
  const apiVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  // fieldManagerFor's reset fields: the main resource does not track status.
  const resetFields =
    info.subresources.some((s) => s.name === 'status') && resetFieldVersions(resources).includes(apiVersion)
      ? ['status']
      : [];
  return async (live, next) => {
    // Managed fields sent with the object (or a live object's) take the manager's other paths.
    if (next.metadata?.managedFields !== undefined || live.metadata?.managedFields !== undefined)
      return onThisThread(live, next);
    let entries: ManagedFieldsEntry[] | undefined;
    try {
      entries = await thread.update({
        group: info.group,
        version: info.version,
        kind: info.kind,
        subresource: '',
        resetFields,
        manager,
        object: JSON.stringify(next),
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
  if (!thread || bodyBytes < OFF_THREAD_BODY_BYTES) return undefined;
  return (text) => thread.storedSize(text);
}
