// Event: core v1 and events.k8s.io/v1 are one resource stored as core v1 (/registry/events).
// events.k8s.io/v1 renames fields (pkg/apis/events/v1/conversion.go): regarding = involvedObject,
// note = message, deprecatedSource = source, deprecated{First,Last}Timestamp = {first,last}Timestamp,
// deprecatedCount = count; core's JSON calls reportingController `reportingComponent`.
// Both are written as Go writes them: struct fields without omitempty appear even when zero
// (`source: {}`, `firstTimestamp: null`, `reportingComponent: ""`).
import type { JsonObject, KubeObject } from '../../api/object.js';
import { convertibleKind } from './convertible-kind.js';
import { compact, copyMetadata, JsonReader, nonEmpty } from './json-reader.js';

interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

interface EventSource {
  component?: string;
  host?: string;
}

/** The internal core.Event; null times are Go's zero time. */
interface Event {
  metadata: JsonObject;
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  count: number;
  type: string;
  eventTime: string | null;
  series?: { count: number; lastObservedTime: string | null };
  action: string;
  related?: ObjectReference;
  reportingController: string;
  reportingInstance: string;
}

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

function readReference(reader: JsonReader, source: JsonObject, name: string): ObjectReference | undefined {
  const reference = reader.object(source, name);
  if (reference === undefined) return undefined;
  const result: Record<string, string> = {};
  for (const field of REFERENCE_FIELDS) {
    const value = nonEmpty(reader.string(reference, field));
    if (value !== undefined) result[field] = value;
  }
  return result;
}

function readSource(reader: JsonReader, event: JsonObject, name: string): EventSource {
  const source = reader.object(event, name) ?? {};
  return compact({
    component: nonEmpty(reader.string(source, 'component')),
    host: nonEmpty(reader.string(source, 'host')),
  });
}

function readSeries(reader: JsonReader, event: JsonObject): Event['series'] {
  const series = reader.object(event, 'series');
  if (series === undefined) return undefined;
  return {
    count: reader.int32(series, 'count') ?? 0,
    lastObservedTime: reader.string(series, 'lastObservedTime') ?? null,
  };
}

function readCoreEvent(object: KubeObject): Event {
  const reader = new JsonReader(false);
  return compact({
    metadata: copyMetadata(object),
    involvedObject: readReference(reader, object, 'involvedObject') ?? {},
    reason: reader.string(object, 'reason') ?? '',
    message: reader.string(object, 'message') ?? '',
    source: readSource(reader, object, 'source'),
    firstTimestamp: reader.string(object, 'firstTimestamp') ?? null,
    lastTimestamp: reader.string(object, 'lastTimestamp') ?? null,
    count: reader.int32(object, 'count') ?? 0,
    type: reader.string(object, 'type') ?? '',
    eventTime: reader.string(object, 'eventTime') ?? null,
    series: readSeries(reader, object),
    action: reader.string(object, 'action') ?? '',
    related: readReference(reader, object, 'related'),
    reportingController: reader.string(object, 'reportingComponent') ?? '',
    reportingInstance: reader.string(object, 'reportingInstance') ?? '',
  });
}

function readEventsV1Event(object: KubeObject): Event {
  const reader = new JsonReader(false);
  return compact({
    metadata: copyMetadata(object),
    involvedObject: readReference(reader, object, 'regarding') ?? {},
    reason: reader.string(object, 'reason') ?? '',
    message: reader.string(object, 'note') ?? '',
    source: readSource(reader, object, 'deprecatedSource'),
    firstTimestamp: reader.string(object, 'deprecatedFirstTimestamp') ?? null,
    lastTimestamp: reader.string(object, 'deprecatedLastTimestamp') ?? null,
    count: reader.int32(object, 'deprecatedCount') ?? 0,
    type: reader.string(object, 'type') ?? '',
    eventTime: reader.string(object, 'eventTime') ?? null,
    series: readSeries(reader, object),
    action: reader.string(object, 'action') ?? '',
    related: readReference(reader, object, 'related'),
    reportingController: reader.string(object, 'reportingController') ?? '',
    reportingInstance: reader.string(object, 'reportingInstance') ?? '',
  });
}

function writeCoreEvent(event: Event): KubeObject {
  return compact({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: event.metadata,
    involvedObject: event.involvedObject,
    reason: nonEmpty(event.reason),
    message: nonEmpty(event.message),
    source: event.source,
    firstTimestamp: event.firstTimestamp,
    lastTimestamp: event.lastTimestamp,
    count: event.count === 0 ? undefined : event.count,
    type: nonEmpty(event.type),
    eventTime: event.eventTime,
    // Core's EventSeries omits a zero count.
    series: event.series && {
      ...compact({ count: event.series.count === 0 ? undefined : event.series.count }),
      lastObservedTime: event.series.lastObservedTime,
    },
    action: nonEmpty(event.action),
    related: event.related,
    reportingComponent: event.reportingController,
    reportingInstance: event.reportingInstance,
  });
}

function writeEventsV1Event(event: Event): KubeObject {
  return compact({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: event.metadata,
    eventTime: event.eventTime,
    series: event.series && { count: event.series.count, lastObservedTime: event.series.lastObservedTime },
    reportingController: nonEmpty(event.reportingController),
    reportingInstance: nonEmpty(event.reportingInstance),
    action: nonEmpty(event.action),
    reason: nonEmpty(event.reason),
    regarding: event.involvedObject,
    related: event.related,
    note: nonEmpty(event.message),
    type: nonEmpty(event.type),
    deprecatedSource: event.source,
    deprecatedFirstTimestamp: event.firstTimestamp,
    deprecatedLastTimestamp: event.lastTimestamp,
    deprecatedCount: event.count === 0 ? undefined : event.count,
  });
}

export const EVENT = convertibleKind<Event>({
  kind: 'Event',
  storage: { group: '', version: 'v1' },
  resources: [
    { group: '', resource: 'events' },
    { group: 'events.k8s.io', resource: 'events' },
  ],
  codecs: [
    { group: '', version: 'v1', read: readCoreEvent, write: writeCoreEvent },
    { group: 'events.k8s.io', version: 'v1', read: readEventsV1Event, write: writeEventsV1Event },
  ],
});
