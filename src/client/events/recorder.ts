// Recording core/v1 Events as client-go's record package does: a recorder builds the event, a
// broadcaster queues it and one writer sends the queue to the apiserver through the correlator
// (create, or patch the count of an identical event). Recording never blocks or throws: a full
// queue drops the event, and failed writes are logged and retried in the background.
import { findResource } from '../../api/resources/lookup.js';
import type { Event, EventSource, ObjectReference } from '../../api/types/core-v1.generated.js';
import { apiErrorCode, apiErrorReason, sleep } from '../informers/index.js';
import type { ApiObject, Client, ResourceClient } from '../types.js';
import { type CorrelatorOptions, EventCorrelator, type EventCountPatch } from './correlator.js';
import { generateEventName, rfc3339 } from './time.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Records an event about an object (or an ObjectReference to one). */
  event(object: ApiObject | ObjectReference, type: EventType, reason: string, message: string): void;
  annotatedEvent(
    object: ApiObject | ObjectReference,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    message: string,
  ): void;
}

/** Where events go; the default writes them through a client. */
export interface EventSink {
  create(event: Event): Promise<Event>;
  patch(event: Event, patch: EventCountPatch): Promise<Event>;
}

export interface EventBroadcasterOptions extends CorrelatorOptions {
  /** Pause between tries of a failed write (10 s; the first one is a random part of it). */
  readonly retrySleepMs?: number;
  readonly log?: (message: string) => void;
}

/** How a dropped event is logged (client-go's words). */
export const DROPPED_EVENT_LOG = 'Unable to record event: too many queued events,';

/** Events queued beyond this are dropped (client-go: 1000). */
const MAX_QUEUED_EVENTS = 1000;
const MAX_TRIES_PER_EVENT = 12;
const EVENTS = findResource('', 'v1', 'events')!;

/** Writes events with a client's `events` resource, patching counts with a strategic merge patch. */
export function clientEventSink(client: Client): EventSink {
  const events: ResourceClient<Event> = client.resource<Event>(EVENTS);
  return {
    create: (event) => events.create(event),
    patch: (event, patch) =>
      events.patch(event.metadata.namespace ?? '', event.metadata.name ?? '', 'strategic', patch),
  };
}

export class EventBroadcaster {
  private readonly sink: EventSink;
  private readonly correlator: EventCorrelator;
  private readonly now: () => number;
  private readonly retrySleepMs: number;
  private readonly log: (message: string) => void;
  private readonly queue: Event[] = [];
  private readonly stopping = new AbortController();
  private writing?: Promise<void>;
  private idleWaiters: (() => void)[] = [];
  /** Events dropped since the queue was last empty. */
  private droppedInBurst = 0;

  /** Events go to the client's `events` resource, or to the sink given. */
  constructor(target: Client | EventSink, options: EventBroadcasterOptions = {}) {
    this.sink = 'resource' in target ? clientEventSink(target) : target;
    this.correlator = new EventCorrelator(options);
    this.now = options.now ?? Date.now;
    this.retrySleepMs = options.retrySleepMs ?? 10_000;
    this.log = options.log ?? ((message) => console.error(message));
  }

  /** A recorder whose events say they come from `source` (component, and host for node agents). */
  newRecorder(source: EventSource): EventRecorder {
    const record = (
      object: ApiObject | ObjectReference,
      annotations: Record<string, string> | undefined,
      type: EventType,
      reason: string,
      message: string,
    ): void => {
      const event = this.makeEvent(source, object, annotations, type, reason, message);
      if (event !== undefined) this.enqueue(event);
    };
    return {
      event: (object, type, reason, message) => record(object, undefined, type, reason, message),
      annotatedEvent: (object, annotations, type, reason, message) =>
        record(object, annotations, type, reason, message),
    };
  }

  /** Resolves once every queued event has been written (or given up on). */
  flush(): Promise<void> {
    if (this.writing === undefined) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops accepting events, abandons retries and waits for the write in progress. */
  async shutdown(): Promise<void> {
    this.stopping.abort();
    this.queue.length = 0;
    await this.writing;
  }

  /**
   * Reports the drops of a burst beyond the first (which was logged as it happened), once the
   * writer has emptied the queue (drops happen only while it is full, so while it writes).
   */
  private reportDrops(): void {
    const more = this.droppedInBurst - 1;
    this.droppedInBurst = 0;
    if (more > 0) this.log(`${DROPPED_EVENT_LOG} dropped ${more} more events`);
  }

  private makeEvent(
    source: EventSource,
    object: ApiObject | ObjectReference,
    annotations: Record<string, string> | undefined,
    type: string,
    reason: string,
    message: string,
  ): Event | undefined {
    const reference = referenceTo(object);
    if (reference === undefined) {
      this.log(
        `Could not construct reference to: '${JSON.stringify(object)}', will not report event: '${type}' '${reason}' '${message}'`,
      );
      return undefined;
    }
    if (type !== 'Normal' && type !== 'Warning') {
      this.log(`Unsupported event type: '${type}'`);
      return undefined;
    }
    const now = this.now();
    const timestamp = rfc3339(now);
    return {
      metadata: {
        name: generateEventName(reference.name ?? '', now),
        namespace: reference.namespace || 'default',
        ...(annotations ? { annotations } : {}),
      },
      involvedObject: reference,
      reason,
      message,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type,
      source: {
        ...(source.component ? { component: source.component } : {}),
        ...(source.host ? { host: source.host } : {}),
      },
      reportingComponent: source.component ?? '',
      reportingInstance: source.host ?? '',
    };
  }

  private enqueue(event: Event): void {
    if (this.stopping.signal.aborted) return;
    if (this.queue.length >= MAX_QUEUED_EVENTS) {
      // client-go logs every drop; under a burst that is thousands of lines, each costing more
      // than the event. The first drop of a burst is logged in full, the rest counted and
      // reported once the queue drains.
      if (this.droppedInBurst++ === 0) this.log(`${DROPPED_EVENT_LOG} dropped event ${describe(event)}`);
      return;
    }
    this.queue.push(event);
    this.writing ??= this.writeQueue();
  }

  private async writeQueue(): Promise<void> {
    try {
      for (let event = this.queue.shift(); event !== undefined; event = this.queue.shift()) {
        await this.recordToSink(event);
      }
    } finally {
      this.writing = undefined;
      this.reportDrops();
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async recordToSink(newEvent: Event): Promise<void> {
    const result = this.correlator.correlate(newEvent);
    if (result.skip || result.event === undefined) return;
    for (let tries = 1; ; tries++) {
      if (await this.write(result.event, result.patch)) return;
      if (tries >= MAX_TRIES_PER_EVENT) {
        this.log(`Unable to write event ${describe(newEvent)} (retry limit exceeded!)`);
        return;
      }
      const delay = tries === 1 ? Math.random() * this.retrySleepMs : this.retrySleepMs;
      await sleep(delay, this.stopping.signal);
      if (this.stopping.signal.aborted) {
        this.log(`Unable to write event ${describe(newEvent)} (broadcaster is shut down)`);
        return;
      }
    }
  }

  /** True when done with the event (written, or refused for good); false to retry. */
  private async write(event: Event, patch: EventCountPatch | undefined): Promise<boolean> {
    try {
      let written: Event | undefined;
      if (patch !== undefined) {
        try {
          written = await this.sink.patch(event, patch);
        } catch (error) {
          if (apiErrorCode(error) !== 404) throw error;
        }
      }
      if (written === undefined) {
        const { resourceVersion: _, ...metadata } = event.metadata;
        written = await this.sink.create({ ...event, metadata });
      }
      this.correlator.updateState(written);
      return true;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (apiErrorCode(error) === undefined) {
        this.log(`Unable to write event ${describe(event)} (may retry after sleeping): ${text}`);
        return false;
      }
      // The server answered: trying again would get the same answer.
      const expected = apiErrorReason(error) === 'AlreadyExists' || isNamespaceTerminating(error);
      if (!expected) this.log(`Server rejected event ${describe(event)} (will not retry!): ${text}`);
      return true;
    }
  }
}

/** An ObjectReference to the object, as client-go's `reference.GetReference` makes it. */
function referenceTo(object: ApiObject | ObjectReference): ObjectReference | undefined {
  if (!('metadata' in object) || object.metadata === undefined) {
    const reference = object as ObjectReference;
    return reference.kind && reference.name ? reference : undefined;
  }
  const { apiVersion, kind, metadata } = object as ApiObject;
  if (!kind || !apiVersion || !metadata?.name) return undefined;
  return {
    kind,
    ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
    name: metadata.name,
    ...(metadata.uid ? { uid: metadata.uid } : {}),
    apiVersion,
    ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
  };
}

function isNamespaceTerminating(error: unknown): boolean {
  // StatusCause's `type` is `reason` on the wire.
  const causes = (error as { status?: { details?: { causes?: { reason?: string }[] } } })?.status?.details
    ?.causes;
  return (causes ?? []).some((cause) => cause.reason === 'NamespaceTerminating');
}

function describe(event: Event): string {
  const o = event.involvedObject;
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}: ${event.type} ${event.reason}`;
}
