// The field manager's thread (no upstream counterpart: kube-apiserver runs each request on a
// goroutine of its own, so a 50,000-item list's managedFields never hold up other requests; here
// the apiserver shares one event loop, so a big object's field manager Update runs on this
// thread). It runs the same FieldManager as the apiserver's thread, for built-in kinds whose
// managedFields are all at the request's version: its result depends only on the request (the
// live object and the new one).
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type JsonSlice, sliceJson } from '../../api/json-slices.js';
import type { JsonObject } from '../patch/json-value.js';
import { storedTextEncodedSize } from '../protobuf/encoded-size.js';
import {
  type CreateCheckRequest,
  checkCreate,
  type PortableCreateCheck,
  portableCreateCheck,
} from '../registry/create-check.js';
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

/** And a big create's validation and storage encoding (registry/create-check.ts). */
export interface CreateCheckThreadRequest {
  readonly id: number;
  /**
   * The object's managedFields, when they are this thread's answer to request `managedFieldsOf`,
   * are sent as an empty list in their place: the thread still holds them, and passing 20,000
   * containers' worth of them back costs the event loop more than their validation.
   */
  readonly createCheck: CreateCheckRequest;
  readonly managedFieldsOf?: number;
}

/**
 * The answer: the new object's managedFields as JSON text (none when nothing is tracked), or a
 * stored text's encoded size, or a create's check, or why it failed.
 */
export interface FieldManagerThreadResponse {
  readonly id: number;
  readonly managedFields?: string;
  /** Instead of `managedFields`, when they are long: in slices the event loop decodes a few at a time. */
  readonly managedFieldsSlices?: JsonSlice[];
  readonly storedSize?: number;
  readonly createCheck?: PortableCreateCheck;
  readonly error?: string;
}

/** Any request the thread takes. */
export type FieldManagerThreadMessage =
  | FieldManagerThreadRequest
  | StoredSizeThreadRequest
  | CreateCheckThreadRequest;

const THREAD_MARK = 'tkubeFieldManagerThread';

/**
 * managedFields longer than this as JSON are answered in slices of at most this much: decoding
 * 4 MB of them (20,000 containers' worth) in one piece held the event loop for 40 ms.
 */
const SLICE_CHARS = 64 * 1024;

/** The worker data that makes the program's entry point run this thread. */
export const FIELD_MANAGER_THREAD_DATA = { [THREAD_MARK]: true } as const;

/** Whether this thread is the field manager's (the entry point then calls runFieldManagerThread). */
export function isFieldManagerThread(): boolean {
  if (isMainThread) return false;
  const data = workerData as Record<string, unknown> | null;
  return data?.[THREAD_MARK] === true;
}

/** The managedFields of the thread's last few answers, by request id, until a create check takes them. */
class AnsweredManagedFields {
  private static readonly KEPT = 4;
  private readonly byRequest = new Map<number, unknown>();

  keep(id: number, managedFields: unknown): void {
    this.byRequest.set(id, managedFields);
    for (const oldest of this.byRequest.keys()) {
      if (this.byRequest.size <= AnsweredManagedFields.KEPT) break;
      this.byRequest.delete(oldest);
    }
  }

  take(id: number): unknown {
    const managedFields = this.byRequest.get(id);
    if (managedFields === undefined) throw new Error(`no managedFields kept for request ${id}`);
    this.byRequest.delete(id);
    return managedFields;
  }
}

/** A create check's object with the managedFields it was sent without. */
function createCheckOf(
  request: CreateCheckThreadRequest,
  answered: AnsweredManagedFields,
): CreateCheckRequest {
  if (request.managedFieldsOf === undefined) return request.createCheck;
  const { object } = request.createCheck;
  if (object.metadata) object.metadata.managedFields = answered.take(request.managedFieldsOf) as never;
  return request.createCheck;
}

/** One request's answer (the thread's work; `managers` caches a FieldManager per kind). */
export function managedFieldsFor(
  request: Omit<FieldManagerThreadRequest, 'id'>,
  managers: Map<string, FieldManager>,
  answered?: { id: number; keep: AnsweredManagedFields },
): Pick<FieldManagerThreadResponse, 'managedFields' | 'managedFieldsSlices'> {
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
  if (managed?.managedFields === undefined) return {};
  // Only a create's are checked with its object later.
  if (request.live === undefined) answered?.keep.keep(answered.id, managed.managedFields);
  const slices = sliceJson(managed.managedFields, SLICE_CHARS);
  const whole = slices.length === 1 ? slices[0]!.json : undefined;
  return whole === undefined ? { managedFieldsSlices: slices } : { managedFields: whole };
}

/** The thread's work: each request's answer, with what it keeps between requests. */
export class FieldManagerThreadBody {
  private readonly managers = new Map<string, FieldManager>();
  private readonly answered = new AnsweredManagedFields();

  answer(request: FieldManagerThreadMessage): FieldManagerThreadResponse {
    const { id } = request;
    try {
      if ('storedText' in request) return { id, storedSize: storedTextEncodedSize(request.storedText) };
      if ('createCheck' in request)
        return { id, createCheck: portableCreateCheck(checkCreate(createCheckOf(request, this.answered))) };
      return { id, ...managedFieldsFor(request, this.managers, { id, keep: this.answered }) };
    } catch (error) {
      return { id, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** The thread's body: answers each request in turn. */
export function runFieldManagerThread(): void {
  const body = new FieldManagerThreadBody();
  parentPort!.on('message', (request: FieldManagerThreadMessage) => {
    parentPort!.postMessage(body.answer(request));
  });
}
