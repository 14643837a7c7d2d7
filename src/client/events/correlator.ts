// The EventCorrelator of client-go (tools/record/events_cache.go), which keeps controllers from
// flooding the apiserver with events:
// - aggregation: once 10 events of one source, object, type and reason with different messages
//   arrive within 10 minutes, further ones become a single "(combined from similar events): ..."
//   event;
// - observation: an event identical to one already written bumps that event's count with a PATCH
//   instead of creating another;
// - spam filter: a token bucket per source and object (burst 25, one more every 5 minutes) drops
//   the rest.
import type { Event } from '../../api/types/core-v1.generated.js';
import { TokenBucket } from '../workqueue/token-bucket.js';
import { LruCache } from './lru.js';
import { generateEventName, rfc3339 } from './time.js';

export interface CorrelatorOptions {
  /** Entries each cache keeps (4096). */
  readonly lruCacheSize?: number;
  /** Spam filter bucket size per source and object (25). */
  readonly burst?: number;
  /** Spam filter refill rate per second (1/300). */
  readonly qps?: number;
  /** Distinct messages of one kind of event before they are combined (10). */
  readonly maxEvents?: number;
  /** Window of aggregation (600 s). */
  readonly maxIntervalSeconds?: number;
  readonly now?: () => number;
}

export interface CorrelationResult {
  /** The event to write, unless skipped. */
  readonly event?: Event;
  /** When set, the event exists: send this strategic merge patch instead of creating it. */
  readonly patch?: EventCountPatch;
  /** Dropped by the spam filter. */
  readonly skip: boolean;
}

/** What a repeated event changes on the stored one. */
export interface EventCountPatch {
  count: number;
  lastTimestamp: string;
  message?: string;
}

interface Observation {
  readonly count: number;
  readonly firstTimestamp: string;
  readonly name: string;
  readonly resourceVersion: string;
}

interface AggregateRecord {
  /** Messages seen in the window, oldest first. */
  readonly localKeys: Set<string>;
  lastTimestamp: number;
}

// Keys join fields without a separator, exactly as client-go does.

/** Source and involved object, the start of every key (the field path only in the event key). */
function sourceAndObject(event: Event, withFieldPath: boolean): (string | undefined)[] {
  const o = event.involvedObject;
  return [
    event.source?.component,
    event.source?.host,
    o.kind,
    o.namespace,
    o.name,
    ...(withFieldPath ? [o.fieldPath] : []),
    o.uid,
    o.apiVersion,
  ];
}

function eventKey(event: Event): string {
  return [...sourceAndObject(event, true), event.type, event.reason, event.message].join('');
}

function spamKey(event: Event): string {
  return [...sourceAndObject(event, false), event.type].join('');
}

function aggregateKeys(event: Event): { aggregateKey: string; localKey: string } {
  const aggregateKey = [
    ...sourceAndObject(event, false),
    event.type,
    event.reason,
    event.reportingComponent,
    event.reportingInstance,
  ].join('');
  return { aggregateKey, localKey: event.message ?? '' };
}

export class EventCorrelator {
  private readonly now: () => number;
  private readonly burst: number;
  private readonly qps: number;
  private readonly maxEvents: number;
  private readonly maxIntervalMs: number;
  private readonly spam: LruCache<string, TokenBucket>;
  private readonly aggregates: LruCache<string, AggregateRecord>;
  private readonly observations: LruCache<string, Observation>;

  constructor(options: CorrelatorOptions = {}) {
    const size = options.lruCacheSize ?? 4096;
    this.now = options.now ?? Date.now;
    this.burst = options.burst ?? 25;
    this.qps = options.qps ?? 1 / 300;
    this.maxEvents = options.maxEvents ?? 10;
    this.maxIntervalMs = (options.maxIntervalSeconds ?? 600) * 1000;
    this.spam = new LruCache(size);
    this.aggregates = new LruCache(size);
    this.observations = new LruCache(size);
  }

  /** What to write for a new event: it, a combined one, a count patch, or nothing. */
  correlate(newEvent: Event): CorrelationResult {
    const { event: aggregated, key } = this.aggregate(newEvent);
    const { event, patch } = this.observe(aggregated, key);
    if (this.filtered(event)) return { skip: true };
    return { event, patch, skip: false };
  }

  /** Records the event as the server stored it, so the next repeat patches the right object. */
  updateState(event: Event): void {
    this.observations.set(eventKey(event), {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp ?? '',
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion ?? '',
    });
  }

  private aggregate(newEvent: Event): { event: Event; key: string } {
    const now = this.now();
    const { aggregateKey, localKey } = aggregateKeys(newEvent);
    let record = this.aggregates.get(aggregateKey);
    if (record === undefined || now - record.lastTimestamp > this.maxIntervalMs) {
      record = { localKeys: new Set(), lastTimestamp: now };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.aggregates.set(aggregateKey, record);
    if (record.localKeys.size < this.maxEvents) return { event: newEvent, key: eventKey(newEvent) };

    // Make room for one more distinct message, so every further one is combined too.
    const oldest = record.localKeys.values().next();
    if (!oldest.done) record.localKeys.delete(oldest.value);
    const timestamp = rfc3339(now);
    const combined: Event = {
      metadata: {
        name: generateEventName(newEvent.involvedObject.name ?? '', now),
        namespace: newEvent.metadata.namespace,
      },
      count: 1,
      firstTimestamp: timestamp,
      involvedObject: newEvent.involvedObject,
      lastTimestamp: timestamp,
      message: `(combined from similar events): ${newEvent.message ?? ''}`,
      type: newEvent.type,
      reason: newEvent.reason,
      source: newEvent.source,
    };
    return { event: combined, key: aggregateKey };
  }

  private observe(newEvent: Event, key: string): { event: Event; patch?: EventCountPatch } {
    const last = this.observations.get(key);
    let event = newEvent;
    let patch: EventCountPatch | undefined;
    if (last !== undefined && last.count > 0) {
      event = {
        ...newEvent,
        metadata: { ...newEvent.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: last.count + 1, lastTimestamp: event.lastTimestamp ?? '' };
      if (event.message) patch.message = event.message;
    }
    this.observations.set(key, {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp ?? '',
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion ?? '',
    });
    return patch === undefined ? { event } : { event, patch };
  }

  private filtered(event: Event): boolean {
    const key = spamKey(event);
    let bucket = this.spam.get(key);
    if (bucket === undefined) bucket = new TokenBucket(this.qps, this.burst, this.now);
    const accepted = bucket.tryAccept();
    this.spam.set(key, bucket);
    return !accepted;
  }
}
