// Events: core/v1 gets the legacy checks only; events.k8s.io/v1 adds the strict ones. Paths are
// those of the internal (core) Event, whichever API the object came through.
import type { KubeObject } from '../../../../api/object.js';
import { utf8Length } from '../../../../api/selectors/go-text.js';
import { type FieldError, fieldInvalid, fieldRequired } from '../../../../api/selectors/index.js';
import { fieldsOf, isSet, numberOf, objectOf, semanticEqual, stringOf } from '../json.js';
import { isQualifiedName, nameIsDnsSubdomain } from '../names.js';
import { validateImmutable, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

/** The fields of a core Event, read from either API version. */
interface EventFields {
  namespace: string;
  involvedNamespace: string;
  eventTime: unknown;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  message: string;
  type: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  count: number;
  source: Record<string, unknown>;
  series: Record<string, unknown> | undefined;
  involvedObject: unknown;
  related: unknown;
}

function coreEventFields(event: KubeObject): EventFields {
  const involved = fieldsOf(event.involvedObject);
  return {
    namespace: stringOf(fieldsOf(event.metadata).namespace),
    involvedNamespace: stringOf(involved.namespace),
    eventTime: event.eventTime,
    reportingController: stringOf(event.reportingComponent),
    reportingInstance: stringOf(event.reportingInstance),
    action: stringOf(event.action),
    reason: stringOf(event.reason),
    message: stringOf(event.message),
    type: stringOf(event.type),
    firstTimestamp: event.firstTimestamp,
    lastTimestamp: event.lastTimestamp,
    count: numberOf(event.count),
    source: fieldsOf(event.source),
    series: objectOf(event.series),
    involvedObject: event.involvedObject,
    related: event.related,
  };
}

function eventsApiFields(event: KubeObject): EventFields {
  const regarding = fieldsOf(event.regarding);
  return {
    namespace: stringOf(fieldsOf(event.metadata).namespace),
    involvedNamespace: stringOf(regarding.namespace),
    eventTime: event.eventTime,
    reportingController: stringOf(event.reportingController),
    reportingInstance: stringOf(event.reportingInstance),
    action: stringOf(event.action),
    reason: stringOf(event.reason),
    message: stringOf(event.note),
    type: stringOf(event.type),
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    count: numberOf(event.deprecatedCount),
    source: fieldsOf(event.deprecatedSource),
    series: objectOf(event.series),
    involvedObject: event.regarding,
    related: event.related,
  };
}

function isZeroTime(value: unknown): boolean {
  return !isSet(value) || value === '';
}

function legacyValidateEvent(event: EventFields): FieldError[] {
  const errors: FieldError[] = [];
  const mismatch = () =>
    fieldInvalid('involvedObject.namespace', event.involvedNamespace, 'does not match event.namespace');
  if (isZeroTime(event.eventTime)) {
    if (event.involvedNamespace === '') {
      if (event.namespace !== '' && event.namespace !== 'default') errors.push(mismatch());
    } else if (event.namespace !== event.involvedNamespace) {
      errors.push(mismatch());
    }
  } else {
    if (event.involvedNamespace === '' && event.namespace !== 'default' && event.namespace !== 'kube-system')
      errors.push(mismatch());
    if (event.reportingController === '') errors.push(fieldRequired('reportingController', ''));
    for (const problem of isQualifiedName(event.reportingController)) {
      errors.push(fieldInvalid('reportingController', event.reportingController, problem));
    }
    if (event.reportingInstance === '') errors.push(fieldRequired('reportingInstance', ''));
    if (utf8Length(event.reportingInstance) > 128)
      errors.push(fieldInvalid('reportingInstance', '', 'can have at most 128 characters'));
    if (event.action === '') errors.push(fieldRequired('action', ''));
    if (utf8Length(event.action) > 128)
      errors.push(fieldInvalid('action', '', 'can have at most 128 characters'));
    if (event.reason === '') errors.push(fieldRequired('reason', ''));
    if (utf8Length(event.reason) > 128)
      errors.push(fieldInvalid('reason', '', 'can have at most 128 characters'));
    if (utf8Length(event.message) > 1024)
      errors.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  }
  for (const problem of nameIsDnsSubdomain(event.namespace, false))
    errors.push(fieldInvalid('namespace', event.namespace, problem));
  return errors;
}

function validateSeries(event: EventFields): FieldError[] {
  if (event.series === undefined) return [];
  const errors: FieldError[] = [];
  if (numberOf(event.series.count) < 2) errors.push(fieldInvalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(event.series.lastObservedTime)) errors.push(fieldRequired('series.lastObservedTime', ''));
  return errors;
}

/** ValidateEventCreate through core/v1: the legacy rules only. */
export function validateCoreEvent(event: KubeObject): FieldError[] {
  return legacyValidateEvent(coreEventFields(event));
}

export function validateCoreEventUpdate(event: KubeObject): FieldError[] {
  return legacyValidateEvent(coreEventFields(event));
}

/** ValidateEventCreate through events.k8s.io/v1. */
export function validateEventsApiEvent(event: KubeObject): FieldError[] {
  const fields = eventsApiFields(event);
  const errors = legacyValidateEvent(fields);
  errors.push(...validateObjectMeta(event.metadata, { namespaced: true, name: nameIsDnsSubdomain }));
  errors.push(...validateSeries(fields));
  if (isZeroTime(fields.eventTime)) errors.push(fieldRequired('eventTime', ''));
  if (fields.type !== 'Normal' && fields.type !== 'Warning')
    errors.push(fieldInvalid('type', '', `has invalid value: ${fields.type}`));
  if (!isZeroTime(fields.firstTimestamp))
    errors.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(fields.lastTimestamp)) errors.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if (fields.count !== 0) errors.push(fieldInvalid('count', '', 'needs to be unset'));
  if (stringOf(fields.source.component) !== '' || stringOf(fields.source.host) !== '') {
    errors.push(fieldInvalid('source', '', 'needs to be unset'));
  }
  return errors;
}

/** ValidateEventUpdate through events.k8s.io/v1. */
export function validateEventsApiEventUpdate(event: KubeObject, old: KubeObject): FieldError[] {
  const next = eventsApiFields(event);
  const previous = eventsApiFields(old);
  const errors = legacyValidateEvent(next);
  errors.push(...validateObjectMetaUpdate(event.metadata, old.metadata));
  if (!semanticEqual(next.series, previous.series)) errors.push(...validateSeries(next));
  const pairs: Array<[string, unknown, unknown]> = [
    ['involvedObject', next.involvedObject, previous.involvedObject],
    ['reason', next.reason, previous.reason],
    ['message', next.message, previous.message],
    ['source', next.source, previous.source],
    ['firstTimestamp', next.firstTimestamp, previous.firstTimestamp],
    ['lastTimestamp', next.lastTimestamp, previous.lastTimestamp],
    ['count', next.count, previous.count],
    ['reason', next.reason, previous.reason],
    ['type', next.type, previous.type],
    ['eventTime', next.eventTime, previous.eventTime],
    ['action', next.action, previous.action],
    ['related', next.related, previous.related],
    ['reportingController', next.reportingController, previous.reportingController],
    ['reportingInstance', next.reportingInstance, previous.reportingInstance],
  ];
  for (const [path, value, oldValue] of pairs) errors.push(...validateImmutable(value, oldValue, path));
  return errors;
}
