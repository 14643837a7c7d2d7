import { afterEach, describe, expect, it } from 'vitest';
import { findResource } from '../../../src/api/resources/lookup.js';
import type { Event, Pod } from '../../../src/api/types/core-v1.generated.js';
import {
  EventBroadcaster,
  EventCorrelator,
  type EventCountPatch,
  type EventSink,
} from '../../../src/client/events/index.js';
import { FakeApiError, FakeClient } from './fake-client.js';

const T0 = Date.parse('2025-05-01T10:00:00Z');

function event(message: string, reason = 'FailedCreate', name = 'web'): Event {
  return {
    metadata: { name: `${name}.${message.length}`, namespace: 'ns' },
    involvedObject: { kind: 'ReplicaSet', namespace: 'ns', name, uid: 'u1', apiVersion: 'apps/v1' },
    reason,
    message,
    type: 'Warning',
    count: 1,
    firstTimestamp: '2025-05-01T10:00:00Z',
    lastTimestamp: '2025-05-01T10:00:00Z',
    source: { component: 'replicaset-controller' },
    reportingComponent: 'replicaset-controller',
    reportingInstance: '',
  };
}

/** Plays the server: stores what the correlator says to write, as the apiserver would. */
function store(correlator: EventCorrelator, written: Event): Event {
  const stored = { ...written, metadata: { ...written.metadata, resourceVersion: '7' } };
  correlator.updateState(stored);
  return stored;
}

describe('EventCorrelator', () => {
  it('turns an identical event into a count patch of the first one', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    const first = correlator.correlate(event('boom'));
    expect(first.skip).toBe(false);
    expect(first.patch).toBeUndefined();
    const stored = store(correlator, first.event!);
    now += 5_000;
    const repeat = event('boom');
    repeat.lastTimestamp = '2025-05-01T10:00:05Z';
    const second = correlator.correlate(repeat);
    expect(second.patch).toEqual({ count: 2, lastTimestamp: '2025-05-01T10:00:05Z', message: 'boom' });
    expect(second.event).toMatchObject({
      metadata: { name: stored.metadata.name, resourceVersion: '7' },
      count: 2,
      firstTimestamp: '2025-05-01T10:00:00Z',
    });
    expect(correlator.correlate(event('boom')).patch?.count).toBe(3);
    // A different reason is a different event.
    expect(correlator.correlate(event('boom', 'Other')).patch).toBeUndefined();
  });

  it('combines the 10th and later similar events (same object and reason, new messages) into one', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    for (let i = 1; i <= 9; i++) {
      const result = correlator.correlate(event(`message ${i}`));
      expect(result.event?.message).toBe(`message ${i}`);
      store(correlator, result.event!);
    }
    now += 1000;
    const tenth = correlator.correlate(event('message 10'));
    expect(tenth.patch).toBeUndefined();
    expect(tenth.event).toMatchObject({
      message: '(combined from similar events): message 10',
      count: 1,
      reason: 'FailedCreate',
      type: 'Warning',
      firstTimestamp: '2025-05-01T10:00:01Z',
      involvedObject: { name: 'web', uid: 'u1' },
      source: { component: 'replicaset-controller' },
    });
    expect(tenth.event!.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
    const combined = store(correlator, tenth.event!);
    now += 1000;
    const eleventh = correlator.correlate(event('message 11'));
    expect(eleventh.event?.metadata.name).toBe(combined.metadata.name);
    expect(eleventh.patch).toEqual({
      count: 2,
      lastTimestamp: '2025-05-01T10:00:02Z',
      message: '(combined from similar events): message 11',
    });
  });

  it('starts aggregation over after 10 minutes without similar events', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    for (let i = 1; i <= 9; i++) correlator.correlate(event(`message ${i}`));
    now += 600_001;
    expect(correlator.correlate(event('message 10')).event?.message).toBe('message 10');
  });

  it('spam filter: 25 events per source and object, then one per 5 minutes', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    const results = Array.from({ length: 26 }, (_, i) => correlator.correlate(event('same', `Reason${i}`)));
    expect(results.filter((r) => !r.skip)).toHaveLength(25);
    expect(results[25]!.skip).toBe(true);
    // Another object has its own bucket.
    expect(correlator.correlate(event('same', 'R', 'other')).skip).toBe(false);
    now += 299_000;
    expect(correlator.correlate(event('x', 'Late')).skip).toBe(true);
    now += 1_000;
    expect(correlator.correlate(event('x', 'Later')).skip).toBe(false);
  });
});

class RecordingSink implements EventSink {
  readonly created: Event[] = [];
  readonly patched: { event: Event; patch: EventCountPatch }[] = [];
  createFailures: unknown[] = [];
  patchFailures: unknown[] = [];
  private rv = 0;

  async create(event: Event): Promise<Event> {
    const failure = this.createFailures.shift();
    if (failure) throw failure;
    this.created.push(event);
    return { ...event, metadata: { ...event.metadata, resourceVersion: String(++this.rv) } };
  }

  async patch(event: Event, patch: EventCountPatch): Promise<Event> {
    const failure = this.patchFailures.shift();
    if (failure) throw failure;
    this.patched.push({ event, patch });
    return { ...event, ...patch, metadata: { ...event.metadata, resourceVersion: String(++this.rv) } };
  }
}

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'ns', uid: 'pod-uid', resourceVersion: '42' },
};

const broadcasters: EventBroadcaster[] = [];
afterEach(async () => {
  for (const broadcaster of broadcasters.splice(0)) await broadcaster.shutdown();
});

function broadcaster(sink: EventSink, logs: string[] = [], now = () => T0): EventBroadcaster {
  const b = new EventBroadcaster(sink, { now, retrySleepMs: 5, log: (line) => logs.push(line) });
  broadcasters.push(b);
  return b;
}

describe('EventBroadcaster and recorder', () => {
  it('writes core/v1 Events as client-go does', async () => {
    const sink = new RecordingSink();
    const b = broadcaster(sink);
    const recorder = b.newRecorder({ component: 'kubelet', host: 'node-1' });
    recorder.event(pod, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    recorder.annotatedEvent(
      { kind: 'Node', name: 'node-1', uid: 'node-1', apiVersion: 'v1' },
      { note: 'x' },
      'Warning',
      'Rebooted',
      'Node node-1 has been rebooted',
    );
    await b.flush();
    expect(sink.created).toHaveLength(2);
    const [first, second] = sink.created;
    // <name>.<unix nanoseconds in hex>
    const [, hex] = /^web-1\.([0-9a-f]+)$/.exec(first!.metadata.name!)!;
    const nanos = BigInt(`0x${hex}`);
    expect(nanos >= BigInt(T0) * 1_000_000n && nanos < BigInt(T0 + 1) * 1_000_000n).toBe(true);
    expect(first).toEqual({
      metadata: { name: first!.metadata.name, namespace: 'ns' },
      involvedObject: {
        kind: 'Pod',
        namespace: 'ns',
        name: 'web-1',
        uid: 'pod-uid',
        apiVersion: 'v1',
        resourceVersion: '42',
      },
      reason: 'Pulled',
      message: 'Container image "nginx" already present on machine',
      firstTimestamp: '2025-05-01T10:00:00Z',
      lastTimestamp: '2025-05-01T10:00:00Z',
      count: 1,
      type: 'Normal',
      source: { component: 'kubelet', host: 'node-1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
    });
    // Cluster-scoped objects' events live in "default".
    expect(second!.metadata).toMatchObject({ namespace: 'default', annotations: { note: 'x' } });
    expect(second!.metadata.name).not.toBe(first!.metadata.name);
  });

  it('patches the count of a repeated event; creates it again when the patch finds it gone', async () => {
    const sink = new RecordingSink();
    const b = broadcaster(sink);
    const recorder = b.newRecorder({ component: 'deployment-controller' });
    recorder.event(pod, 'Warning', 'Failed', 'boom');
    recorder.event(pod, 'Warning', 'Failed', 'boom');
    await b.flush();
    expect(sink.created).toHaveLength(1);
    expect(sink.patched).toHaveLength(1);
    expect(sink.patched[0]!.patch).toMatchObject({ count: 2, message: 'boom' });
    expect(sink.patched[0]!.event.metadata.name).toBe(sink.created[0]!.metadata.name);
    sink.patchFailures.push(new FakeApiError(404, 'NotFound', 'gone'));
    recorder.event(pod, 'Warning', 'Failed', 'boom');
    await b.flush();
    expect(sink.created).toHaveLength(2);
    expect(sink.created[1]).toMatchObject({ count: 3 });
    expect(sink.created[1]!.metadata.resourceVersion).toBeUndefined();
  });

  it('retries network failures, gives up on server refusals, never throws into the caller', async () => {
    const sink = new RecordingSink();
    const logs: string[] = [];
    const b = broadcaster(sink, logs);
    const recorder = b.newRecorder({ component: 'c' });
    sink.createFailures.push(new Error('ECONNRESET'), new Error('ECONNRESET'));
    expect(() => recorder.event(pod, 'Normal', 'A', 'a')).not.toThrow();
    await b.flush();
    expect(sink.created).toHaveLength(1);
    expect(logs.filter((line) => line.includes('(may retry after sleeping)'))).toHaveLength(2);

    sink.createFailures.push(new FakeApiError(403, 'Forbidden', 'events is forbidden'));
    recorder.event(pod, 'Normal', 'B', 'b');
    await b.flush();
    expect(sink.created).toHaveLength(1);
    expect(logs.at(-1)).toContain('(will not retry!): events is forbidden');
  });

  it('drops events beyond 1000 queued, logging the first drop of a burst and a count of the rest', async () => {
    let release = (): void => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sink = new RecordingSink();
    const blocked: EventSink = {
      create: async (written) => {
        await released;
        return sink.create(written);
      },
      patch: (written, patch) => sink.patch(written, patch),
    };
    const logs: string[] = [];
    const b = broadcaster(blocked, logs);
    const recorder = b.newRecorder({ component: 'c' });
    // The first is taken off the queue and written (blocked); 1000 more fill the queue. One pod
    // each, as the correlator lets only 25 events about one object through.
    const podNamed = (name: string): Pod => ({ ...pod, metadata: { ...pod.metadata, name, uid: name } });
    for (let i = 0; i <= 1000; i++) recorder.event(podNamed(`p${i}`), 'Normal', 'Scheduled', 'ok');
    expect(logs).toEqual([]);
    for (let i = 0; i < 5; i++) recorder.event(pod, 'Normal', `Over${i}`, 'over');
    expect(logs).toEqual([
      'Unable to record event: too many queued events, dropped event Pod ns/web-1: Normal Over0',
    ]);
    release();
    await b.flush();
    expect(sink.created).toHaveLength(1001);
    expect(logs).toEqual([
      'Unable to record event: too many queued events, dropped event Pod ns/web-1: Normal Over0',
      'Unable to record event: too many queued events, dropped 4 more events',
    ]);
    // A new burst is logged afresh.
    recorder.event(pod, 'Normal', 'After', 'after');
    await b.flush();
    expect(logs).toHaveLength(2);
  });

  it('drops events it cannot describe', async () => {
    const sink = new RecordingSink();
    const logs: string[] = [];
    const b = broadcaster(sink, logs);
    const recorder = b.newRecorder({ component: 'c' });
    recorder.event({ metadata: { name: 'no-kind' } }, 'Normal', 'A', 'a');
    recorder.event(pod, 'Bogus' as 'Normal', 'A', 'a');
    await b.flush();
    expect(sink.created).toHaveLength(0);
    expect(logs[1]).toBe("Unsupported event type: 'Bogus'");
  });

  it('writes through a client with a strategic merge patch for counts', async () => {
    const client = new FakeClient();
    const b = new EventBroadcaster(client, { log: () => {} });
    broadcasters.push(b);
    const recorder = b.newRecorder({ component: 'c' });
    recorder.event(pod, 'Normal', 'A', 'a');
    recorder.event(pod, 'Normal', 'A', 'a');
    await b.flush();
    const events = client.resource<Event>(findResource('', 'v1', 'events')!);
    expect(events.patches).toHaveLength(1);
    expect(events.patches[0]).toMatchObject({ namespace: 'ns', type: 'strategic', patch: { count: 2 } });
    const stored = (await events.list('ns')).items;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ count: 2, reason: 'A' });
  });
});
