import { releaseHeapSoon } from '../../api/heap-release.js';
import { LARGE_OBJECT_BYTES } from '../../api/large-objects.js';
import { nextTask } from '../../api/next-task.js';
import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import { fieldForbidden, fieldInvalid, fieldRequired, GoRendered } from '../../api/selectors/field-errors.js';
import type { FieldSelector, LabelSelector } from '../../api/selectors/index.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  InvalidContinueError,
  KeyExistsError,
  KeyNotFoundError,
  type Store,
  type WatchEvent,
} from '../../storage/index.js';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from '../admission/chain.js';
import { convert, type GroupVersion, storageVersionOf } from '../conversion/index.js';
import { pruneUnknownFields } from '../field-validation/prune.js';
import type { UserInfo } from '../http/types.js';
import {
  alreadyExists,
  badRequest,
  CONTINUE_EXPIRED_MESSAGE,
  conflict,
  type GroupResource,
  invalid,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  resourceExpired,
  StatusError,
  storageRequestTooLarge,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from '../status.js';
import type { CreateCheck, CreateCheckRequest } from './create-check.js';
import type { CustomResourceServing } from './custom-resource-serving.js';
import {
  defaultGarbageCollectionPolicy,
  deletionFinalizersForGarbageCollection,
} from './garbage-collection-policy.js';
import { generateName, metaOf, newUid, specChanged, timestamp } from './object-meta.js';
import { parseResourceVersion } from './resource-version.js';
import { exceedsStorageLimit, fitsAsJson, overStorageLimit } from './storage-limit.js';
import { decodeStored, encodeForStorage, storedForm, withResourceVersion } from './stored-object.js';
import type { Strategy } from './strategy.js';
import { rulesFor } from './validation/index.js';

/** Store events converted by a webhook, by served group/version: shared by the watchers of a version. */
const servedEventCache = new WeakMap<WatchEvent, Map<string, Promise<WatchEvent>>>();

/**
 * How a resource whose stored form differs from its served form is read and written, beyond the
 * built-in conversions: custom resources (apiVersion rewritten to the served or storage version,
 * schema defaults applied on every read).
 */
export interface StorageCodec {
  /** Whether the stored text is served as it is (only its resourceVersion spliced in). */
  servesAsStored(stored: string): boolean;
  fromStorage(object: KubeObject): KubeObject;
  toStorage(object: KubeObject): KubeObject;
  /**
   * Set when converting takes a round trip (a CRD's conversion webhook): the objects in the served
   * or the storage version, converted together before the synchronous steps above.
   */
  convertAsync?: (objects: KubeObject[], to: 'served' | 'storage', asList: boolean) => Promise<KubeObject[]>;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
  /** Who writes: admission checks that depend on the user (RBAC escalation) need it. */
  readonly user?: UserInfo;
  /** Admission warnings are added here, for the response's Warning headers. */
  readonly warnings?: string[];
  /**
   * The field manager's Update (the handler's, for the writer's fieldManager): the object to write
   * with its managedFields set, from the live object (an empty one on create) and the new one;
   * `liveBytes` is the size of the live object's stored text (none on create).
   */
  readonly manageFields?: (
    live: KubeObject,
    next: KubeObject,
    liveBytes?: number,
  ) => KubeObject | Promise<KubeObject>;
  /**
   * The request body was large (create): each expensive phase (defaulting, the field manager,
   * admission, validation, storage encoding) gets a task of its own, so the event loop serves
   * other requests (health probes first) between them rather than after the whole write.
   */
  readonly large?: boolean;
  /**
   * Measures a stored text over etcd's limit in JSON off the event loop (a create's; the field
   * manager's thread): its storage encoding's size. When it fails the size is measured here.
   */
  readonly measureStoredText?: (text: string) => Promise<number>;
  /**
   * Validates a large create of a built-in kind and encodes it for storage off the event loop (the
   * field manager's thread). When it fails, both are done here.
   */
  readonly checkCreate?: (request: CreateCheckRequest) => Promise<CreateCheck>;
}

export interface UpdateOptions extends WriteOptions {
  /** '' for the main resource, 'status' for the status subresource. */
  readonly subresource?: string;
}

export interface DeleteOptions extends WriteOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  readonly preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListOptions {
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface ListPage {
  /** Each item as JSON text with its resourceVersion. */
  readonly items: string[];
  readonly revision: number;
  readonly continue?: string;
}

export interface DeleteOutcome {
  readonly object: KubeObject;
  /** False when the object was only marked (finalizers or a grace period). */
  readonly deleted: boolean;
}

/** Checks a namespaced create: the namespace must exist and not be terminating. */
export type NamespaceCheck = (namespace: string, gr: GroupResource, name: string) => Promise<void>;

const MAX_GENERATE_NAME_ATTEMPTS = 8;
const MAX_CONFLICT_RETRIES = 16;

/**
 * The generic registry of one resource: create, read, update, delete, list and watch on
 * top of the store, with Kubernetes' object-metadata rules and the resource's strategy.
 * Stored objects carry no resourceVersion; reads add the store's modRevision.
 */
export class ResourceStore {
  readonly groupResource: GroupResource;
  /** Where the objects are stored: `/registry/[<group>/]<resource>/`. */
  readonly root: string;

  constructor(
    readonly info: ResourceInfo,
    readonly strategy: Strategy,
    private readonly store: Store,
    private readonly checkNamespace: NamespaceCheck,
    private readonly codec?: StorageCodec,
  ) {
    this.groupResource = { group: info.group, resource: info.resource };
    // Versions that share storage (autoscaling v1/v2, core and events.k8s.io events) share keys.
    const storage = storageVersionOf(info.group, info.resource);
    const storageGroup = storage?.group ?? info.group;
    this.root = `/registry/${storageGroup === '' ? '' : `${storageGroup}/`}${info.resource}/`;
    if (storage && (storage.group !== info.group || storage.version !== info.version))
      this.storageVersion = storage;
  }

  /** A write check that needs the user (RBAC escalation prevention); runs after validation. */
  admission?: (object: KubeObject, old: KubeObject | undefined, user: UserInfo) => void;
  /** The admission chain: mutating plugins after defaulting, validating ones after validation. */
  admissionChain?: AdmissionChain;
  /** Set for custom resources: what serving them needs beyond the generic flow. */
  custom?: CustomResourceServing;

  private admissionAttributes(
    operation: AdmissionOperation,
    object: KubeObject,
    oldObject: KubeObject | undefined,
    options: UpdateOptions,
  ): AdmissionAttributes {
    return {
      operation,
      resource: this.info,
      subresource: options.subresource ?? '',
      namespace: object.metadata?.namespace ?? '',
      name: object.metadata?.name ?? '',
      object,
      oldObject,
      user: options.user,
      dryRun: options.dryRun ?? false,
      warnings: options.warnings ?? [],
    };
  }

  /** Set when objects are stored in another version than this endpoint serves. */
  private readonly storageVersion?: GroupVersion;

  /** A stored object as this endpoint serves it (JSON text with its resourceVersion). */
  servedText(stored: string, revision: number): string {
    if (this.codec && !this.codec.servesAsStored(stored))
      return JSON.stringify(this.servedObject(stored, revision));
    if (!this.storageVersion) return withResourceVersion(stored, revision);
    return JSON.stringify(this.servedObject(stored, revision));
  }

  /** A stored object as this endpoint serves it, with its resourceVersion. */
  servedObject(stored: string, revision: number): KubeObject {
    const object = decodeStored(stored, revision);
    if (this.codec) {
      const served = this.codec.fromStorage(object);
      metaOf(served).resourceVersion = String(revision);
      return served;
    }
    if (!this.storageVersion) return object;
    const served = convert(object, { group: this.info.group, version: this.info.version });
    metaOf(served).resourceVersion = String(revision);
    return served;
  }

  /**
   * Stored texts in the served version when a webhook converts them (one review for all of them);
   * otherwise as they are, for the synchronous decode.
   */
  private async inServedVersion(values: string[], asList = false): Promise<string[]> {
    const convert = this.codec?.convertAsync;
    if (!convert || values.length === 0) return values;
    const objects = values.map((value) => JSON.parse(value) as KubeObject);
    const converted = await convert(objects, 'served', asList);
    return converted.map((object, i) => (object === objects[i] ? values[i]! : encodeForStorage(object)));
  }

  /** A stored text in the served version (see inServedVersion). */
  private async servedValue(value: string): Promise<string> {
    return (await this.inServedVersion([value]))[0]!;
  }

  /** An object to be stored, converted to the storage version by the webhook where there is one. */
  private async inStorageVersion(object: KubeObject): Promise<KubeObject> {
    const convert = this.codec?.convertAsync;
    return convert ? (await convert([object], 'storage', false))[0]! : object;
  }

  /**
   * A watch batch with its objects in the served version. Where a webhook converts them, the
   * events no watcher of this version has had converted yet go in one review, and every watcher
   * of the version shares the result (store events are shared objects).
   */
  async servedEvents(batch: readonly WatchEvent[]): Promise<readonly WatchEvent[]> {
    if (!this.codec?.convertAsync) return batch;
    const version = `${this.info.group}/${this.info.version}`;
    const cached = (event: WatchEvent) => servedEventCache.get(event)?.get(version);
    const missing = batch.filter((event) => cached(event) === undefined);
    if (missing.length > 0) {
      const converted = this.convertEvents(missing);
      // A failed conversion is not kept: a later watcher asks the webhook again.
      converted.catch(() => {
        for (const event of missing) servedEventCache.get(event)?.delete(version);
      });
      for (const [i, event] of missing.entries()) {
        let byVersion = servedEventCache.get(event);
        if (!byVersion) {
          byVersion = new Map();
          servedEventCache.set(event, byVersion);
        }
        byVersion.set(
          version,
          converted.then((events) => events[i]!),
        );
      }
    }
    return Promise.all(batch.map((event) => cached(event)!));
  }

  private async convertEvents(batch: readonly WatchEvent[]): Promise<WatchEvent[]> {
    const values: string[] = [];
    for (const event of batch) {
      if (event.value !== undefined) values.push(event.value);
      if (event.prevValue !== undefined) values.push(event.prevValue);
    }
    const served = await this.inServedVersion(values);
    let at = 0;
    return batch.map((event) => ({
      ...event,
      ...(event.value !== undefined ? { value: served[at++] } : {}),
      ...(event.prevValue !== undefined ? { prevValue: served[at++] } : {}),
    }));
  }

  /**
   * Refuses a write etcd would refuse: over 1.5 MiB (its default --max-request-bytes) in
   * kube-apiserver's storage encoding, protobuf for built-in kinds and JSON for custom resources.
   */
  private checkStorageLimit(key: string, text: string, object: KubeObject): void {
    if (fitsAsJson(key, text)) return;
    // The object `text` was made from, measured as it is rather than parsed back from the text.
    if (exceedsStorageLimit(key, text, storedForm(this.storageForm(object)))) throw storageRequestTooLarge();
  }

  /** checkStorageLimit, with a text over the limit in JSON measured by `measure` when given. */
  private async checkStorageLimitOf(
    key: string,
    text: string,
    object: KubeObject,
    measure: ((text: string) => Promise<number>) | undefined,
  ): Promise<void> {
    if (!measure || fitsAsJson(key, text)) return this.checkStorageLimit(key, text, object);
    let encoded: number;
    try {
      encoded = await measure(text);
    } catch {
      return this.checkStorageLimit(key, text, object);
    }
    if (overStorageLimit(key, encoded)) throw storageRequestTooLarge();
  }

  /** The text to store for an object in this endpoint's version. */
  private storedText(object: KubeObject): string {
    try {
      return encodeForStorage(this.storageForm(object));
    } catch (error) {
      // JSON.stringify recurses on V8's fixed stack, which holds a few thousand levels where Go
      // (and kube-apiserver's 10,000-level decode limit) holds more: an object this deep could
      // not be encoded for reads and watches either, so it is refused rather than a 500.
      if (error instanceof RangeError)
        throw badRequest(`the object is nested too deeply to be stored: ${error.message}`);
      throw error;
    }
  }

  /** The object in this endpoint's storage version. */
  private storageForm(object: KubeObject): KubeObject {
    if (this.codec) return this.codec.toStorage(object);
    return this.storageVersion ? convert(object, this.storageVersion) : object;
  }

  key(namespace: string, name: string): string {
    return this.info.namespaced ? `${this.root}${namespace}/${name}` : `${this.root}${name}`;
  }

  /** The key prefix of a list: one namespace, or all of them when `namespace` is ''. */
  prefix(namespace: string): string {
    return this.info.namespaced && namespace !== '' ? `${this.root}${namespace}/` : this.root;
  }

  // ---- reads ---------------------------------------------------------------------------

  async getText(namespace: string, name: string): Promise<string> {
    const kv = await this.store.get(this.key(namespace, name));
    if (!kv) throw notFound(this.groupResource, name);
    if (this.codec?.convertAsync) return this.servedText(await this.servedValue(kv.value), kv.modRevision);
    return this.servedText(kv.value, kv.modRevision);
  }

  /** The object, or undefined when it does not exist (for internal reads that expect absence). */
  async find(namespace: string, name: string): Promise<KubeObject | undefined> {
    const kv = await this.store.get(this.key(namespace, name));
    if (kv && this.codec?.convertAsync)
      return this.servedObject(await this.servedValue(kv.value), kv.modRevision);
    return kv && this.servedObject(kv.value, kv.modRevision);
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    const kv = await this.store.get(this.key(namespace, name));
    if (!kv) throw notFound(this.groupResource, name);
    if (this.codec?.convertAsync) return this.servedObject(await this.servedValue(kv.value), kv.modRevision);
    return this.servedObject(kv.value, kv.modRevision);
  }

  async list(namespace: string, options: ListOptions = {}): Promise<ListPage> {
    const revision = this.listRevision(options);
    const filter = this.filterFor(options.labelSelector, options.fieldSelector);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const prefix = this.prefix(namespace);
    const items: string[] = [];
    let token = options.continue;
    let readRevision = revision;
    // With a selector, keep reading pages until `limit` items match or the list ends.
    for (;;) {
      const page = await this.translate(() =>
        this.store.list(prefix, {
          limit,
          continue: token,
          revision: token === undefined ? readRevision : undefined,
        }),
      );
      readRevision = page.revision;
      // A conversion webhook converts the page in one review, as upstream converts a list.
      const values = this.codec?.convertAsync
        ? await this.inServedVersion(
            page.items.map((kv) => kv.value),
            true,
          )
        : undefined;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i]!;
        const value = values ? values[i]! : kv.value;
        if (filter && !filter(this.servedObject(value, kv.modRevision))) continue;
        items.push(this.servedText(value, kv.modRevision));
      }
      token = page.continue;
      if (token === undefined || limit === undefined || items.length >= limit) break;
    }
    return { items, revision: readRevision, continue: token };
  }

  /** Resolves resourceVersion/resourceVersionMatch to a store revision (0: current). */
  private listRevision(options: ListOptions): number {
    const rv = options.resourceVersion;
    if (options.continue !== undefined && rv !== undefined && rv !== '' && rv !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    if (options.resourceVersionMatch !== undefined && (rv === undefined || rv === '')) {
      throw invalid('meta.k8s.io', 'ListOptions', '', [
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      ]);
    }
    if (rv === undefined || rv === '' || rv === '0') {
      if (options.resourceVersionMatch === 'Exact') {
        throw invalid('meta.k8s.io', 'ListOptions', '', [
          fieldForbidden(
            'resourceVersionMatch',
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
          ),
        ]);
      }
      return 0;
    }
    const requested = parseResourceVersion(rv);
    const current = this.store.currentRevision();
    if (requested > BigInt(current)) throw tooLargeResourceVersion(requested, current);
    // Not beyond the current revision: a safe integer.
    const revision = Number(requested);
    if (options.resourceVersionMatch === 'Exact') {
      const compacted = this.store.compactedRevision();
      if (revision < compacted) throw tooOldResourceVersion(revision, compacted);
      return revision;
    }
    // NotOlderThan (or no match given): the current state is never older.
    return 0;
  }

  /** A predicate for label and field selectors, or undefined when there are none. */
  filterFor(
    labelSelector: LabelSelector | undefined,
    fieldSelector: FieldSelector | undefined,
  ): ((object: KubeObject) => boolean) | undefined {
    const labels = labelSelector && !labelSelector.isEmpty() ? labelSelector : undefined;
    const fields = fieldSelector && !fieldSelector.isEmpty() ? fieldSelector : undefined;
    if (!labels && !fields) return undefined;
    return (object) => {
      if (labels && !labels.matches(object.metadata?.labels)) return false;
      if (fields) {
        const values = this.fieldValues(object);
        if (!fields.matches((field) => values[field])) return false;
      }
      return true;
    };
  }

  /** Why a field selector may not use `label` (runtime.DefaultMetaV1FieldSelectorConversion's text unless the kind has its own). */
  unsupportedFieldLabel(label: string): string {
    return this.strategy.unsupportedFieldLabel?.(label) ?? `field label not supported: ${label}`;
  }

  fieldValues(object: KubeObject): Record<string, string> {
    return {
      'metadata.name': object.metadata?.name ?? '',
      ...(this.info.namespaced ? { 'metadata.namespace': object.metadata?.namespace ?? '' } : {}),
      ...this.strategy.selectableFields(object),
    };
  }

  // ---- writes --------------------------------------------------------------------------

  async create(namespace: string, object: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    if (options.large !== true) return this.createObject(namespace, object, options);
    try {
      return await this.createObject(namespace, object, options);
    } finally {
      releaseHeapSoon();
    }
  }

  private async createObject(
    namespace: string,
    object: KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject> {
    this.checkDecodable(object);
    pruneUnknownFields(object, this.info);
    const meta = metaOf(object);
    if (this.info.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    const pause = options.large === true;
    if (pause) await nextTask();
    this.strategy.defaults(object);
    if (options.manageFields) {
      if (pause) await nextTask();
      const empty: KubeObject = { apiVersion: object.apiVersion, kind: object.kind };
      setOrDelete(meta, 'managedFields', (await options.manageFields(empty, object)).metadata?.managedFields);
    }
    if (pause) await nextTask();
    const attributes = this.admissionAttributes('CREATE', object, undefined, options);
    await this.admissionChain?.admit(attributes);
    this.fillCreateMetadata(object);
    const generating = !meta.name && meta.generateName;
    if (generating) meta.name = generateName(meta.generateName!);
    await this.strategy.prepareForCreate(object, options.user);
    if (pause) await nextTask();
    const checked = await this.checkedOffThread(namespace, object, options);
    const errors = checked
      ? 'errors' in checked
        ? checked.errors
        : []
      : this.strategy.validateCreate(object);
    // Every upstream strategy validates ObjectMeta; a strategy here that checks no name must
    // still not store an object under an empty one.
    if (errors.length === 0 && !meta.name)
      errors.push(fieldRequired('metadata.name', 'name or generateName is required'));
    if (errors.length > 0) throw invalid(this.info.group, this.info.kind, meta.name ?? '', errors);
    if (pause) await nextTask();
    if (options.user) this.admission?.(object, undefined, options.user);
    await this.admissionChain?.validate(attributes);
    if (this.info.namespaced) await this.checkNamespace(namespace, this.groupResource, meta.name!);
    if (options.dryRun) {
      if (await this.store.get(this.key(namespace, meta.name!)))
        throw alreadyExists(this.groupResource, meta.name!);
      return object;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const key = this.key(namespace, meta.name!);
        let text: string;
        if (attempt === 1 && checked && !('errors' in checked)) {
          // Checked (and encoded) under this name by the thread.
          if ('tooLarge' in checked) throw storageRequestTooLarge();
          text = checked.storedText;
        } else {
          if (pause) await nextTask();
          const storing = this.codec?.convertAsync ? await this.inStorageVersion(object) : object;
          text = this.storedText(storing);
          if (pause) await nextTask();
          await this.checkStorageLimitOf(key, text, storing, options.measureStoredText);
        }
        const kv = await this.store.create(key, text);
        meta.resourceVersion = String(kv.modRevision);
        return object;
      } catch (error) {
        if (!(error instanceof KeyExistsError)) throw error;
        // generateName: a collision picks another suffix, as kube-apiserver retries.
        if (!generating || attempt >= MAX_GENERATE_NAME_ATTEMPTS)
          throw alreadyExists(this.groupResource, meta.name!);
        meta.name = generateName(meta.generateName!);
      }
    }
  }

  /**
   * A large create's validation and storage encoding from options.checkCreate, for kinds whose
   * validation is their built-in rules' and whose stored form is the object as it is; none when
   * it does not apply or fails.
   */
  private async checkedOffThread(
    namespace: string,
    object: KubeObject,
    options: WriteOptions,
  ): Promise<CreateCheck | undefined> {
    if (options.large !== true || !options.checkCreate || this.codec || this.storageVersion) return undefined;
    const { group, kind } = this.info;
    if (this.strategy.validateCreate !== rulesFor(group, kind)?.validateCreate) return undefined;
    try {
      return await options.checkCreate({
        group,
        kind,
        object,
        key: this.key(namespace, metaOf(object).name ?? ''),
      });
    } catch {
      return undefined;
    }
  }

  /** What decoding into the Go type would refuse: 400 `<Kind> in version "v1" cannot be handled as a <Kind>`. */
  private checkDecodable(object: KubeObject): void {
    const problem = this.strategy.decodeError(object);
    if (problem !== undefined) {
      const { kind, version } = this.info;
      throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${problem}`);
    }
  }

  private fillCreateMetadata(object: KubeObject): void {
    const meta = metaOf(object);
    meta.uid = newUid();
    meta.creationTimestamp = timestamp();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
  }

  /**
   * PUT: replaces the object. A resourceVersion in the body makes it conditional; without
   * one the update applies to whatever is current. On the status subresource only status
   * changes; on the main resource status is kept (for resources with a status subresource).
   */
  async update(
    namespace: string,
    name: string,
    object: KubeObject,
    options: UpdateOptions = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const meta = metaOf(object);
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    meta.name = name;
    const requestedVersion = meta.resourceVersion;
    const kv = await this.store.get(this.key(namespace, name));
    if (!kv) {
      if (!this.strategy.allowCreateOnUpdate || options.subresource) throw notFound(this.groupResource, name);
      return { object: await this.create(namespace, object, options), created: true };
    }
    return {
      object: await this.guaranteedUpdate(namespace, name, () => object, {
        ...options,
        expectedVersion: requestedVersion,
      }),
      created: false,
    };
  }

  /**
   * Read-modify-write with optimistic concurrency: `mutate` gets the current object and
   * returns the desired one; a conflicting write in between retries, unless the caller
   * pinned a resourceVersion, which is then a 409 Conflict.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options: UpdateOptions & { expectedVersion?: string } = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    // Objects given the current version because they named none: a retry gives them the new one
    // (mutate may hand back the same object, as an update's request body).
    const unconditional = new WeakSet<KubeObject>();
    // A big object's write ends with its heap given back (releaseHeapSoon).
    let large = false;
    try {
      for (let attempt = 0; ; attempt++) {
        const kv = await this.store.get(key);
        if (!kv) throw notFound(this.groupResource, name);
        const served = this.codec?.convertAsync ? await this.servedValue(kv.value) : kv.value;
        // A large stored object is updated in several tasks: decoding, the request's change (a
        // patch), the field manager, admission and encoding each take tens of ms for a
        // 15,000-env-var pod, and the event loop serves other requests between them.
        const pause = kv.value.length >= LARGE_OBJECT_BYTES;
        large ||= pause;
        const current = this.servedObject(served, kv.modRevision);
        const pinned = options.expectedVersion !== undefined && options.expectedVersion !== '';
        if (pinned && options.expectedVersion !== String(kv.modRevision)) {
          throw conflict(this.groupResource, name, OPTIMISTIC_LOCK_MESSAGE);
        }
        if (pause) await nextTask();
        // A second decode is the caller's copy: parsing the text again costs less than half of a
        // structuredClone of the parsed object.
        const copy = this.servedObject(served, kv.modRevision);
        if (pause) await nextTask();
        const desired = await mutate(copy);
        if (pause) await nextTask();
        if (unconditional.has(desired)) delete metaOf(desired).resourceVersion;
        if (this.checkResourceVersion(desired, name, kv.modRevision)) unconditional.add(desired);
        const next = await this.prepareUpdate(
          desired,
          current,
          options.subresource ?? '',
          options.manageFields,
          kv.value.length,
        );
        if (pause) await nextTask();
        if (options.user) this.admission?.(next, current, options.user);
        if (this.admissionChain) {
          const attributes = this.admissionAttributes('UPDATE', next, current, options);
          await this.admissionChain.admit(attributes);
          await this.admissionChain.validate(attributes);
        }
        const storing = this.codec?.convertAsync ? await this.inStorageVersion(next) : next;
        if (pause) await nextTask();
        const nextText = this.storedText(storing);
        const unchanged = nextText === kv.value;
        if (unchanged || options.dryRun) {
          metaOf(next).resourceVersion = String(kv.modRevision);
          return next;
        }
        try {
          if (this.finalizersDone(next)) {
            await this.store.delete(key, { expectedRevision: kv.modRevision });
            return next;
          }
          this.checkStorageLimit(key, nextText, storing);
          const result = await this.store.update(key, nextText, {
            expectedRevision: kv.modRevision,
          });
          metaOf(next).resourceVersion = String(result.current.modRevision);
          return next;
        } catch (error) {
          // Deleted since it was read: NotFound, as etcd3's GuaranteedUpdate finds on its re-read.
          if (error instanceof KeyNotFoundError) throw notFound(this.groupResource, name);
          if (!(error instanceof ConflictError)) throw error;
          if (pinned || attempt >= MAX_CONFLICT_RETRIES) {
            throw conflict(this.groupResource, name, OPTIMISTIC_LOCK_MESSAGE);
          }
        }
      }
    } finally {
      if (large) releaseHeapSoon();
    }
  }

  /**
   * An update names the version it edits (a stale one is a conflict). One without
   * metadata.resourceVersion applies to the current object where the strategy allows it
   * (AllowUnconditionalUpdate); elsewhere it is refused as the generic registry refuses it,
   * naming the resource and the uint64 zero as Go prints it. True when it filled in the version.
   */
  private checkResourceVersion(desired: KubeObject, name: string, currentRevision: number): boolean {
    const meta = metaOf(desired);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
      // The object the request produced (a scale's parent, a patched object) names the version it edits.
      if (meta.resourceVersion !== String(currentRevision))
        throw conflict(this.groupResource, name, OPTIMISTIC_LOCK_MESSAGE);
      return false;
    }
    if (this.strategy.allowUnconditionalUpdate) {
      meta.resourceVersion = String(currentRevision);
      return true;
    }
    throw invalid(this.info.group, this.info.resource, name, [
      fieldInvalid('metadata.resourceVersion', new GoRendered('0x0'), 'must be specified for an update'),
    ]);
  }

  /** An object marked for deletion whose last finalizer is gone is deleted by this write. */
  private finalizersDone(object: KubeObject): boolean {
    const meta = object.metadata ?? {};
    return (
      meta.deletionTimestamp !== undefined &&
      (meta.finalizers ?? []).length === 0 &&
      (meta.deletionGracePeriodSeconds ?? 0) === 0 &&
      !this.strategy.finalizationPending(object)
    );
  }

  private async prepareUpdate(
    desired: KubeObject,
    current: KubeObject,
    subresource: string,
    manageFields?: WriteOptions['manageFields'],
    /** The size of the current object's stored text. */
    currentBytes = 0,
  ): Promise<KubeObject> {
    const next = desired;
    // A binding's object is the stored pod with spec.nodeName and one condition set by the
    // server: nothing in it can fail to decode or be unknown.
    if (subresource !== 'binding') {
      this.checkDecodable(next);
      pruneUnknownFields(next, this.info);
    }
    const meta = metaOf(next);
    const old = current.metadata ?? {};
    // Fields the system owns are carried over from the stored object.
    meta.name = old.name;
    if (this.info.namespaced) meta.namespace = old.namespace;
    else delete meta.namespace;
    // A uid in the new object is a precondition (the kubelet's status writes rely on it).
    if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== old.uid) {
      throw conflict(
        this.groupResource,
        old.name ?? '',
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.uid}`,
      );
    }
    meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    setOrDelete(meta, 'deletionTimestamp', old.deletionTimestamp);
    setOrDelete(meta, 'deletionGracePeriodSeconds', old.deletionGracePeriodSeconds);
    setOrDelete(meta, 'generation', old.generation);
    delete meta.selfLink;
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    if (subresource === 'status') {
      // A status write keeps the spec; what metadata it keeps is the status strategy's choice.
      const status = next.status;
      const { status: _oldStatus, metadata: _oldMeta, ...rest } = current;
      for (const field of Object.keys(next))
        if (field !== 'metadata' && field !== 'status') delete next[field];
      Object.assign(next, rest);
      if (status === undefined) delete next.status;
      else next.status = status;
      const kept = this.strategy.statusKeepsMetadata;
      if (kept === 'all') {
        const { resourceVersion, managedFields } = meta;
        for (const field of Object.keys(meta) as (keyof typeof meta)[]) delete meta[field];
        // managedFields are the field manager's, written on every subresource.
        Object.assign(meta, old, { resourceVersion });
        setOrDelete(meta, 'managedFields', managedFields);
      } else {
        for (const field of kept) setOrDelete(meta, field, old[field]);
      }
      this.strategy.prepareForStatusUpdate?.(next, current);
    } else if (subresource !== 'binding') {
      // (A binding writes spec.nodeName and the PodScheduled condition together, as upstream's.)
      this.strategy.defaults(next);
      await this.strategy.prepareForUpdate(next, current, subresource);
      if (this.strategy.tracksGeneration && specChanged(next, current))
        meta.generation = (old.generation ?? 0) + 1;
    }
    if (old.deletionTimestamp !== undefined) {
      // Once deleting, finalizers can only be removed (kube-apiserver: "no new finalizers can be added").
      const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
      if (added.length > 0) {
        throw invalid(this.info.group, this.info.kind, old.name ?? '', [
          fieldForbidden(
            'metadata.finalizers',
            'no new finalizers can be added if the object is being deleted, found new finalizers ' +
              `[]string{${added.map((f) => `"${f}"`).join(', ')}}`,
          ),
        ]);
      }
    }
    // The field manager runs before validation, so `managedFields: [{}]` resets rather than fails.
    if (manageFields)
      setOrDelete(
        meta,
        'managedFields',
        (await manageFields(current, next, currentBytes)).metadata?.managedFields,
      );
    // A binding sets spec.nodeName, which pod updates may not change: like upstream's binding
    // REST, it is not validated as an update.
    const errors = subresource === 'binding' ? [] : this.strategy.validateUpdate(next, current, subresource);
    if (errors.length > 0) throw invalid(this.info.group, this.info.kind, old.name ?? '', errors);
    return next;
  }

  // ---- delete --------------------------------------------------------------------------

  async delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.store.get(key);
      if (!kv) throw notFound(this.groupResource, name);
      const served = this.codec?.convertAsync ? await this.servedValue(kv.value) : kv.value;
      // Decoding a large object twice takes tens of ms: each in a task of its own.
      const pause = served.length >= LARGE_OBJECT_BYTES;
      if (pause) await nextTask();
      const current = this.servedObject(served, kv.modRevision);
      this.checkPreconditions(current, options.preconditions);
      if (this.admissionChain) {
        // Delete admission sees the object being deleted as both object and old object.
        const attributes = this.admissionAttributes('DELETE', current, current, options);
        await this.admissionChain.admit(attributes);
        await this.admissionChain.validate(attributes);
      }
      if (pause) await nextTask();
      const next = this.servedObject(served, kv.modRevision);
      const meta = metaOf(next);
      const grace = this.strategy.gracePeriodSeconds(current, options.gracePeriodSeconds);
      const alreadyDeleting = meta.deletionTimestamp !== undefined;
      const previousGrace = meta.deletionGracePeriodSeconds;
      // A graceful deletion under way (a pod's grace period) may only be shortened; until then
      // DeleteOptions change nothing, finalizers included (rest.BeforeDelete's pendingGraceful).
      if (
        alreadyDeleting &&
        previousGrace !== undefined &&
        previousGrace > 0 &&
        (options.gracePeriodSeconds === undefined || grace >= previousGrace)
      ) {
        return { object: current, deleted: false };
      }
      const finalizers =
        deletionFinalizersForGarbageCollection(
          meta.finalizers ?? [],
          options.propagationPolicy,
          defaultGarbageCollectionPolicy(this.info),
        ) ??
        meta.finalizers ??
        [];
      const pending = this.strategy.finalizationPending(current);
      if (finalizers.length === 0 && grace === 0 && !pending) {
        if (options.dryRun) return { object: current, deleted: true };
        try {
          const result = await this.store.delete(key, { expectedRevision: kv.modRevision });
          meta.resourceVersion = String(result.revision);
          return { object: current, deleted: true };
        } catch (error) {
          if (error instanceof ConflictError && attempt < MAX_CONFLICT_RETRIES) continue;
          if (error instanceof KeyNotFoundError) throw notFound(this.groupResource, name);
          throw error;
        }
      }
      // Graceful: mark the object; its finalizers' owners or its kubelet finish the delete.
      const now = Date.now();
      if (!alreadyDeleting || (previousGrace !== undefined && grace < previousGrace)) {
        meta.deletionTimestamp = timestamp(new Date(now + grace * 1000));
        meta.deletionGracePeriodSeconds = grace;
        if (meta.generation !== undefined) meta.generation += 1;
      }
      if (finalizers.length > 0) meta.finalizers = finalizers;
      else delete meta.finalizers;
      // After the finalizers: a strategy may add its own (a CRD's cleanup finalizer).
      this.strategy.markDeleting(next);
      if (pause) await nextTask();
      const storing = this.codec?.convertAsync ? await this.inStorageVersion(next) : next;
      const nextText = this.storedText(storing);
      if (nextText === kv.value || options.dryRun) return { object: next, deleted: false };
      try {
        this.checkStorageLimit(key, nextText, storing);
        const result = await this.store.update(key, nextText, {
          expectedRevision: kv.modRevision,
        });
        meta.resourceVersion = String(result.current.modRevision);
        return { object: next, deleted: false };
      } catch (error) {
        if (error instanceof ConflictError && attempt < MAX_CONFLICT_RETRIES) continue;
        if (error instanceof KeyNotFoundError) throw notFound(this.groupResource, name);
        throw error;
      }
    }
  }

  private checkPreconditions(object: KubeObject, preconditions: DeleteOptions['preconditions']): void {
    if (!preconditions) return;
    const meta = object.metadata ?? {};
    if (preconditions.uid !== undefined && preconditions.uid !== meta.uid) {
      throw conflict(
        this.groupResource,
        meta.name ?? '',
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta.uid}`,
      );
    }
    if (
      preconditions.resourceVersion !== undefined &&
      preconditions.resourceVersion !== meta.resourceVersion
    ) {
      throw conflict(
        this.groupResource,
        meta.name ?? '',
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
      );
    }
  }

  async deleteCollection(
    namespace: string,
    listOptions: ListOptions,
    deleteOptions: DeleteOptions,
  ): Promise<KubeObject[]> {
    const { items } = await this.list(namespace, { ...listOptions, limit: undefined, continue: undefined });
    const deleted: KubeObject[] = [];
    for (const text of items) {
      const object = JSON.parse(text) as KubeObject;
      try {
        const outcome = await this.delete(
          object.metadata?.namespace ?? '',
          object.metadata?.name ?? '',
          deleteOptions,
        );
        deleted.push(outcome.object);
      } catch (error) {
        // Deleted meanwhile by someone else: that is the desired end state.
        if (!(error instanceof StatusError && error.code === 404)) throw error;
      }
    }
    return deleted;
  }

  /** Maps store errors met while listing to the Status Kubernetes answers with. */
  private async translate<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof CompactedError) throw resourceExpired(CONTINUE_EXPIRED_MESSAGE);
      if (error instanceof InvalidContinueError) throw badRequest(error.message);
      if (error instanceof FutureRevisionError) {
        throw tooLargeResourceVersion(error.requestedRevision, error.currentRevision);
      }
      throw error;
    }
  }
}

function setOrDelete<K extends keyof NonNullable<KubeObject['metadata']>>(
  meta: NonNullable<KubeObject['metadata']>,
  field: K,
  value: NonNullable<KubeObject['metadata']>[K],
): void {
  if (value === undefined) delete meta[field];
  else meta[field] = value;
}
