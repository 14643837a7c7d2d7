// The field manager's thread (no upstream counterpart: kube-apiserver runs each request on a
// goroutine of its own, so a 50,000-item list's managedFields never hold up other requests; here
// the apiserver shares one event loop, so a big object's field manager Update runs on this
// thread). It runs the same FieldManager as the apiserver's thread, for built-in kinds whose
// managedFields are all at the request's version: its result depends only on the request (the
// live object and the new one).
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { JsonObject } from '../patch/json-value.js';
import { storedTextEncodedSize } from '../protobuf/encoded-size.js';
import { FieldManager } from './field-manager.js';
import { fieldElement } from './fieldpath/path-element.js';
import { FieldSet } from './fieldpath/set.js';
import { sameSchemaConverter } from './merge/updater.js';
import { builtinType } from './typed/builtin-types.js';

/** What the apiserver's thread sends: one field manager Update of an object of a built-in kind. */
export interface FieldManagerThreadRequest {
  readonly id: number;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly subresource: string;
  /** The top-level fields the strategy resets (`status` on the main resource), not tracked. */
  readonly resetFields: readonly string[];
  readonly manager: string;
  /** The new object, as JSON text (cheaper to pass than a structured clone of a big object). */
  readonly object: string;
  /** The live object as JSON text; none on a create (the live object is then empty). */
  readonly live?: string;
}

/**
 * The other work the thread takes: the storage encoding's size of a stored text over etcd's
 * limit in JSON (parsing it back and walking it takes a big object's create hundreds of ms).
 */
export interface StoredSizeThreadRequest {
  readonly id: number;
  readonly storedText: string;
}

/**
 * The answer: the new object's managedFields as JSON text (none when nothing is tracked), or a
 * stored text's encoded size, or why it failed.
 */
export interface FieldManagerThreadResponse {
  readonly id: number;
  readonly managedFields?: string;
  readonly storedSize?: number;
  readonly error?: string;
}

const THREAD_MARK = 'tkubeFieldManagerThread';

/** The worker data that makes the program's entry point run this thread. */
export const FIELD_MANAGER_THREAD_DATA = { [THREAD_MARK]: true } as const;

/** Whether this thread is the field manager's (the entry point then calls runFieldManagerThread). */
export function isFieldManagerThread(): boolean {
  if (isMainThread) return false;
  const data = workerData as Record<string, unknown> | null;
  return data?.[THREAD_MARK] === true;
}

/** One request's answer (the thread's work; `managers` caches a FieldManager per kind). */
export function managedFieldsFor(
  request: Omit<FieldManagerThreadRequest, 'id'>,
  managers: Map<string, FieldManager>,
): string | undefined {
  const { group, version, kind, subresource, resetFields } = request;
  const apiVersion = group === '' ? version : `${group}/${version}`;
  const key = `${apiVersion}/${kind}/${subresource}/${resetFields.join(',')}`;
  let manager = managers.get(key);
  if (!manager) {
    const type = builtinType(group, version, kind);
    if (!type) throw new Error(`no schema for ${apiVersion}, Kind=${kind}`);
    const reset = FieldSet.of(...resetFields.map((field) => [fieldElement(field)]));
    manager = new FieldManager({
      apiVersion,
      kind,
      subresource,
      converter: sameSchemaConverter(type),
      ...(resetFields.length > 0 ? { ignoredFields: new Map([[apiVersion, reset]]) } : {}),
    });
    managers.set(key, manager);
  }
  const live: JsonObject = request.live === undefined ? { apiVersion, kind } : JSON.parse(request.live);
  const next = JSON.parse(request.object) as JsonObject;
  const managed = manager.update(live, next, request.manager).metadata as JsonObject | undefined;
  return managed?.managedFields === undefined ? undefined : JSON.stringify(managed.managedFields);
}

/** The thread's body: answers each request in turn. */
export function runFieldManagerThread(): void {
  const managers = new Map<string, FieldManager>();
  parentPort!.on('message', (request: FieldManagerThreadRequest | StoredSizeThreadRequest) => {
    let response: FieldManagerThreadResponse;
    try {
      response =
        'storedText' in request
          ? { id: request.id, storedSize: storedTextEncodedSize(request.storedText) }
          : { id: request.id, managedFields: managedFieldsFor(request, managers) };
    } catch (error) {
      response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(response);
  });
}
