// The Event printer. core/v1 and events.k8s.io Events share one storage in Kubernetes and are printed
// from the same internal object, so events.k8s.io fields are first mapped to their core names.
import type { JsonObject, KubeObject } from '../../api/object.js';
import { at, int, optObj, str } from './access.js';
import { column, fieldColumn, NAME, wideFieldColumn } from './columns.js';
import { parseTimestamp, since } from './duration.js';
import { nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

/** The core/v1 field names of an events.k8s.io Event (the conversion Kubernetes applies). */
export function coreEventFromEventsApi(event: KubeObject): KubeObject {
  const renamed: JsonObject = {
    involvedObject: at(event, 'regarding'),
    message: at(event, 'note'),
    source: at(event, 'deprecatedSource'),
    firstTimestamp: at(event, 'deprecatedFirstTimestamp'),
    lastTimestamp: at(event, 'deprecatedLastTimestamp'),
    count: at(event, 'deprecatedCount'),
  };
  return { ...event, ...renamed };
}

/** formatEventSource: component (or reportingController), then `, host` (or reportingInstance). */
function eventSource(event: KubeObject): string {
  const component = str(event, 'source', 'component') || str(event, 'reportingController');
  const host = str(event, 'source', 'host') || str(event, 'reportingInstance');
  return host === '' ? component : `${component}, ${host}`;
}

function eventTarget(event: KubeObject): string {
  const kind = str(event, 'involvedObject', 'kind').toLowerCase();
  const name = str(event, 'involvedObject', 'name');
  return name === '' ? kind : `${kind}/${name}`;
}

function coreEventRow(event: KubeObject, now: Date): unknown[] {
  // Events of the newer API carry eventTime instead of firstTimestamp, and a series instead of a count.
  const firstTimestamp = at(event, 'firstTimestamp');
  const firstSeen = since(
    parseTimestamp(firstTimestamp) === undefined ? at(event, 'eventTime') : firstTimestamp,
    now,
  );
  const lastTimestamp = at(event, 'lastTimestamp');
  let lastSeen = parseTimestamp(lastTimestamp) === undefined ? firstSeen : since(lastTimestamp, now);
  let count = int(event, 'count');
  const series = optObj(event, 'series');
  if (series !== undefined) {
    lastSeen = since(at(series, 'lastObservedTime'), now);
    count = int(series, 'count');
  } else if (count === 0) {
    count = 1;
  }
  return [
    lastSeen,
    str(event, 'type'),
    str(event, 'reason'),
    eventTarget(event),
    str(event, 'involvedObject', 'fieldPath'),
    eventSource(event),
    str(event, 'message').trim(),
    firstSeen,
    count,
    nameOf(event),
  ];
}

const COLUMNS = [
  fieldColumn('Last Seen', 'string', 'core/v1.Event.lastTimestamp'),
  fieldColumn('Type', 'string', 'core/v1.Event.type'),
  fieldColumn('Reason', 'string', 'core/v1.Event.reason'),
  fieldColumn('Object', 'string', 'core/v1.Event.involvedObject'),
  wideFieldColumn('Subobject', 'string', 'core/v1.ObjectReference.fieldPath'),
  wideFieldColumn('Source', 'string', 'core/v1.Event.source'),
  fieldColumn('Message', 'string', 'core/v1.Event.message'),
  wideFieldColumn('First Seen', 'string', 'core/v1.Event.firstTimestamp'),
  wideFieldColumn('Count', 'string', 'core/v1.Event.count'),
  column('Name', 'string', NAME.description, { format: 'name', priority: 1 }),
];

export const coreEvents: KindPrinter = { columns: COLUMNS, row: coreEventRow };

export const eventsApiEvents: KindPrinter = {
  columns: COLUMNS,
  row: (event, now) => coreEventRow(coreEventFromEventsApi(event), now),
};
