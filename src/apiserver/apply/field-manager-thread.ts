// The apiserver's side of the field manager's thread (field-manager-thread-body.ts): started on
// the first big write, it takes a big new object's field manager Update (and a big create's
// validation and storage encoding) off the event loop, so /readyz and every other request are
// served while a 50,000-item list's managedFields are built.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { joinJsonSlices } from '../../api/json-slices.js';
import type { ManagedFieldsEntry } from '../../api/object.js';
import { workerResourceLimits } from '../../api/worker-threads.js';
import {
  type CreateCheck,
  type CreateCheckRequest,
  createCheckFromPortable,
} from '../registry/create-check.js';
import {
  FIELD_MANAGER_THREAD_DATA,
  type FieldManagerThreadMessage,
  type FieldManagerThreadRequest,
  type FieldManagerThreadResponse,
} from './field-manager-thread-body.js';

/**
 * The thread's program beside this module: the bundle of its own (field-manager-thread.cjs) beside
 * the control plane's bundle, or the compiled module in dist/. From the TypeScript sources there is
 * none (a worker cannot load them): the Update then stays on the event loop.
 */
export function defaultFieldManagerThreadEntry(): string | undefined {
  const here = import.meta.url;
  if (!here.startsWith('file:') || here.endsWith('.ts')) return undefined;
  for (const name of ['./field-manager-thread.cjs', './field-manager-thread-main.js']) {
    const path = fileURLToPath(new URL(name, here));
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * An idle thread ends after this long, giving its heap back: a big create leaves tens of MiB in
 * it (a 15,000-env-var pod: 508 MiB resident with 10 s, 391 MiB with 1 s); big creates are rare
 * and a start costs tens of ms.
 */
const IDLE_STOP_MS = 1_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  resolve(response: FieldManagerThreadResponse): void;
  reject(error: Error): void;
}

export class FieldManagerThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The managedFields of the thread's answers, by the request id the thread keeps them under. */
  private readonly answers = new WeakMap<object, number>();

  /** `entry`: the program's entry point, which runs the thread's body when started as it. */
  constructor(private readonly entry: string) {}

  /** The new object's managedFields, from the thread; rejects when the thread fails or stops. */
  async update(request: Omit<FieldManagerThreadRequest, 'id'>): Promise<ManagedFieldsEntry[] | undefined> {
    const { managedFields, managedFieldsSlices, id } = await this.send(request);
    const entries = (
      managedFieldsSlices
        ? await joinJsonSlices(managedFieldsSlices)
        : managedFields === undefined
          ? undefined
          : JSON.parse(managedFields)
    ) as ManagedFieldsEntry[] | undefined;
    if (entries === undefined) return undefined;
    this.answers.set(entries, id);
    return entries;
  }

  /** A stored text's size in the storage encoding (storedTextEncodedSize), from the thread. */
  async storedSize(storedText: string): Promise<number> {
    const { storedSize } = await this.send({ storedText });
    if (storedSize === undefined) throw new Error('the field manager thread answered no size');
    return storedSize;
  }

  /** A big create's validation and storage encoding (checkCreate), from the thread. */
  async checkCreate(request: CreateCheckRequest): Promise<CreateCheck> {
    const { object } = request;
    const entries = object.metadata?.managedFields;
    const managedFieldsOf = entries === undefined ? undefined : this.answers.get(entries);
    const { createCheck } = await this.send(
      managedFieldsOf === undefined
        ? { createCheck: request }
        : {
            createCheck: {
              ...request,
              object: { ...object, metadata: { ...object.metadata, managedFields: [] } },
            },
            managedFieldsOf,
          },
    );
    if (createCheck === undefined) throw new Error('the field manager thread answered no check');
    return createCheckFromPortable(createCheck);
  }

  private send(
    request: DistributiveOmit<FieldManagerThreadMessage, 'id'>,
  ): Promise<FieldManagerThreadResponse> {
    const worker = this.worker ?? this.start();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  stop(): void {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    this.failAll(new Error('the field manager thread stopped'));
  }

  private start(): Worker {
    const worker = new Worker(this.entry, {
      workerData: FIELD_MANAGER_THREAD_DATA,
      name: 'tkube-field-manager',
      resourceLimits: workerResourceLimits(),
    });
    // Idle between big writes: it must not keep the process alive.
    worker.unref();
    worker.on('message', (response: FieldManagerThreadResponse) => {
      const waiting = this.pending.get(response.id);
      if (!waiting) return;
      this.pending.delete(response.id);
      if (this.pending.size === 0) {
        clearTimeout(this.idleTimer);
        this.idleTimer = setTimeout(() => this.stop(), IDLE_STOP_MS).unref();
      }
      if (response.error !== undefined) waiting.reject(new Error(response.error));
      else waiting.resolve(response);
    });
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the field manager thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of waiting) reject(error);
  }
}
