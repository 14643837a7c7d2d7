import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { convert } from '../../../src/apiserver/conversion/index.js';
import './support.js';

const CORE = { group: '', version: 'v1' };
const EVENTS = { group: 'events.k8s.io', version: 'v1' };

const metadata = {
  name: 'web-7d4b9.181a2b3c4d5e6f70',
  namespace: 'default',
  uid: 'e-1',
  resourceVersion: '42',
  creationTimestamp: '2025-03-01T10:00:00Z',
};
const pod = {
  kind: 'Pod',
  namespace: 'default',
  name: 'web-7d4b9',
  uid: 'p-1',
  apiVersion: 'v1',
  resourceVersion: '40',
  fieldPath: 'spec.containers{app}',
};
const node = { kind: 'Node', name: 'worker-1', uid: 'n-1', apiVersion: 'v1' };

describe('Event with every field', () => {
  const core: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: pod,
    reason: 'BackOff',
    message: 'Back-off restarting failed container app',
    source: { component: 'kubelet', host: 'worker-1' },
    firstTimestamp: '2025-03-01T10:00:00Z',
    lastTimestamp: '2025-03-01T10:05:00Z',
    count: 7,
    type: 'Warning',
    eventTime: '2025-03-01T10:00:00.123456Z',
    series: { count: 6, lastObservedTime: '2025-03-01T10:05:00.654321Z' },
    action: 'Restarting',
    related: node,
    reportingComponent: 'kubelet',
    reportingInstance: 'worker-1',
  };
  const events: KubeObject = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata,
    eventTime: '2025-03-01T10:00:00.123456Z',
    series: { count: 6, lastObservedTime: '2025-03-01T10:05:00.654321Z' },
    reportingController: 'kubelet',
    reportingInstance: 'worker-1',
    action: 'Restarting',
    reason: 'BackOff',
    regarding: pod,
    related: node,
    note: 'Back-off restarting failed container app',
    type: 'Warning',
    deprecatedSource: { component: 'kubelet', host: 'worker-1' },
    deprecatedFirstTimestamp: '2025-03-01T10:00:00Z',
    deprecatedLastTimestamp: '2025-03-01T10:05:00Z',
    deprecatedCount: 7,
  };

  it('renames the core fields for events.k8s.io/v1', () => {
    expect(convert(core, EVENTS)).toBeJson(events);
  });

  it('renames the events.k8s.io/v1 fields for core', () => {
    expect(convert(events, CORE)).toBeJson(core);
  });

  it('round-trips both ways', () => {
    expect(convert(convert(core, EVENTS), CORE)).toBeJson(core);
    expect(convert(convert(events, CORE), EVENTS)).toBeJson(events);
  });
});

describe('Event written by only one API', () => {
  // What a kubelet's core/v1 recorder writes.
  const core: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: pod,
    reason: 'Pulled',
    message: 'Container image "nginx:1.27" already present on machine',
    source: { component: 'kubelet', host: 'worker-1' },
    firstTimestamp: '2025-03-01T10:00:00Z',
    lastTimestamp: '2025-03-01T10:00:00Z',
    count: 1,
    type: 'Normal',
    eventTime: null,
    reportingComponent: 'kubelet',
    reportingInstance: 'worker-1',
  };
  // What an events.k8s.io/v1 recorder (the scheduler) writes.
  const events: KubeObject = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata,
    eventTime: '2025-03-01T10:00:00.000001Z',
    reportingController: 'default-scheduler',
    reportingInstance: 'default-scheduler-control-plane',
    action: 'Binding',
    reason: 'Scheduled',
    regarding: {
      kind: 'Pod',
      namespace: 'default',
      name: 'web-7d4b9',
      uid: 'p-1',
      apiVersion: 'v1',
      resourceVersion: '40',
    },
    note: 'Successfully assigned default/web-7d4b9 to worker-1',
    type: 'Normal',
  };

  it('shows a core event in events.k8s.io/v1 with Go zero values where fields have no omitempty', () => {
    expect(convert(core, EVENTS)).toBeJson({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata,
      eventTime: null,
      reportingController: 'kubelet',
      reportingInstance: 'worker-1',
      reason: 'Pulled',
      regarding: pod,
      note: 'Container image "nginx:1.27" already present on machine',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'worker-1' },
      deprecatedFirstTimestamp: '2025-03-01T10:00:00Z',
      deprecatedLastTimestamp: '2025-03-01T10:00:00Z',
      deprecatedCount: 1,
    });
  });

  it('shows an events.k8s.io/v1 event in core with an empty source, null timestamps and no count', () => {
    expect(convert(events, CORE)).toBeJson({
      apiVersion: 'v1',
      kind: 'Event',
      metadata,
      involvedObject: events.regarding,
      reason: 'Scheduled',
      message: 'Successfully assigned default/web-7d4b9 to worker-1',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Normal',
      eventTime: '2025-03-01T10:00:00.000001Z',
      action: 'Binding',
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-control-plane',
    });
  });

  it('round-trips both ways, adding only the zero values Go writes', () => {
    expect(convert(convert(core, EVENTS), CORE)).toBeJson(core);
    expect(convert(convert(events, CORE), EVENTS)).toBeJson({
      ...events,
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
  });

  it('writes core reportingComponent and reportingInstance even when empty, and a series count only when set', () => {
    const minimal: KubeObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      eventTime: '2025-03-01T10:00:00.000000Z',
      series: { count: 0, lastObservedTime: '2025-03-01T10:00:00.000000Z' },
      regarding: {},
    };
    expect(convert(minimal, CORE)).toBeJson({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: '2025-03-01T10:00:00.000000Z',
      series: { lastObservedTime: '2025-03-01T10:00:00.000000Z' },
      reportingComponent: '',
      reportingInstance: '',
    });
    // events.k8s.io/v1's EventSeries writes both fields always.
    expect(convert({ apiVersion: 'v1', kind: 'Event', series: {} }, EVENTS)).toBeJson({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {},
      eventTime: null,
      series: { count: 0, lastObservedTime: null },
      regarding: {},
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
  });
});
