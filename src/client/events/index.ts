export {
  type CorrelationResult,
  type CorrelatorOptions,
  EventCorrelator,
  type EventCountPatch,
} from './correlator.js';
export {
  clientEventSink,
  EventBroadcaster,
  type EventBroadcasterOptions,
  type EventRecorder,
  type EventSink,
  type EventType,
} from './recorder.js';
export { generateEventName } from './time.js';
