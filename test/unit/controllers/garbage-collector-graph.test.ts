// The dependency graph on its own: virtual owners, identity checks, transitions into the
// foreground and orphan queues, and a graph of thousands of objects that empties as they go.
import { describe, expect, it } from 'vitest';
import type { OwnerReference } from '../../../src/api/types/meta-v1.generated.js';
import type { EventRecorder } from '../../../src/client/events/index.js';
import type { ApiObject } from '../../../src/client/types.js';
import { RateLimitingQueue } from '../../../src/client/workqueue/index.js';
import { GraphNode } from '../../../src/controllers/garbage-collector/graph.js';
import {
  alternateOwnerIdentity,
  GraphBuilder,
  type GraphEvent,
  partitionDependents,
} from '../../../src/controllers/garbage-collector/graph-builder.js';
import { deletableResources, resourceFor } from '../../../src/controllers/garbage-collector/resources.js';

interface Recorded {
  readonly object: unknown;
  readonly reason: string;
  readonly message: string;
}

function setup() {
  const attemptToDelete = new RateLimitingQueue<string>();
  const attemptToOrphan = new RateLimitingQueue<string>();
  const events: Recorded[] = [];
  const recorder: EventRecorder = {
    event: (object, _type, reason, message) => events.push({ object, reason, message }),
    annotatedEvent: (object, _annotations, _type, reason, message) =>
      events.push({ object, reason, message }),
  };
  const builder = new GraphBuilder({ attemptToDelete, attemptToOrphan }, recorder);
  return { builder, attemptToDelete, attemptToOrphan, events };
}

/** Everything queued, in order, emptying the queue. */
async function drain(queue: RateLimitingQueue<string>): Promise<string[]> {
  const items: string[] = [];
  while (queue.length > 0) {
    const item = (await queue.get())!;
    queue.done(item);
    items.push(item);
  }
  return items;
}

const REPLICA_SET = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };

function object(
  name: string,
  uid: string,
  namespace: string,
  extra: Partial<NonNullable<ApiObject['metadata']>> = {},
): ApiObject {
  return { metadata: { name, uid, namespace, ...extra } };
}

function event(
  type: GraphEvent['type'],
  kind: typeof REPLICA_SET,
  obj: ApiObject,
  oldObject?: ApiObject,
): GraphEvent {
  return { type, object: obj, oldObject, ...kind };
}

function ref(name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { ...REPLICA_SET, name, uid, ...extra };
}

describe('garbage collector graph', () => {
  it('watches every deletable resource but events, one version each', () => {
    const resources = deletableResources().map((r) => `${r.group}/${r.version}/${r.resource}`);
    expect(resources).toContain('/v1/pods');
    expect(resources).toContain('apps/v1/replicasets');
    expect(resources).toContain('autoscaling/v2/horizontalpodautoscalers');
    expect(resources).not.toContain('autoscaling/v1/horizontalpodautoscalers');
    expect(resources).not.toContain('/v1/events');
    expect(resources).not.toContain('events.k8s.io/v1/events');
    expect(resources).not.toContain('/v1/bindings');
    expect(resourceFor('apps/v1', 'ReplicaSet').resource).toBe('replicasets');
    expect(() => resourceFor('extensions/v1beta1', 'ReplicaSet')).toThrow(
      'unable to get REST mapping for kind: ReplicaSet, version: extensions/v1beta1',
    );
  });

  it('creates a virtual owner for an unseen reference and marks it observed later', async () => {
    const { builder, attemptToDelete } = setup();
    builder.process(
      event('add', CONFIG_MAP, object('dep', 'd1', 'ns', { ownerReferences: [ref('rs', 'o1')] })),
    );
    const owner = builder.graph.get('o1')!;
    expect(owner.virtual).toBe(true);
    expect(owner.identity).toEqual({ ...REPLICA_SET, name: 'rs', uid: 'o1', namespace: 'ns' });
    expect([...owner.dependents].map((d) => d.identity.name)).toEqual(['dep']);
    expect(await drain(attemptToDelete)).toEqual(['o1']);

    builder.process(event('add', REPLICA_SET, object('rs', 'o1', 'ns')));
    expect(owner.virtual).toBe(false);
    expect(await drain(attemptToDelete)).toEqual([]);
  });

  it('queues dependents that named an owner with other coordinates once it is observed', async () => {
    const { builder, attemptToDelete, events } = setup();
    builder.process(
      event('add', CONFIG_MAP, object('wrong-name', 'd1', 'ns', { ownerReferences: [ref('old', 'o1')] })),
    );
    builder.process(
      event('add', CONFIG_MAP, object('other-ns', 'd2', 'elsewhere', { ownerReferences: [ref('rs', 'o1')] })),
    );
    await drain(attemptToDelete);
    builder.process(event('add', REPLICA_SET, object('rs', 'o1', 'ns')));
    expect((await drain(attemptToDelete)).sort()).toEqual(['d1', 'd2']);
    expect(events).toEqual([
      {
        object: { ...CONFIG_MAP, name: 'other-ns', namespace: 'elsewhere', uid: 'd2' },
        reason: 'OwnerRefInvalidNamespace',
        message:
          'ownerRef [apps/v1/ReplicaSet, namespace: elsewhere, name: rs, uid: o1] does not exist in namespace "elsewhere"',
      },
    ]);
  });

  it('sends owners starting a foreground or orphaning deletion to their queues', async () => {
    const { builder, attemptToDelete, attemptToOrphan } = setup();
    const owner = object('rs', 'o1', 'ns');
    builder.process(event('add', REPLICA_SET, owner));
    builder.process(
      event('add', CONFIG_MAP, object('a', 'd1', 'ns', { ownerReferences: [ref('rs', 'o1')] })),
    );
    await drain(attemptToDelete);
    const deleting = object('rs', 'o1', 'ns', {
      deletionTimestamp: '2025-01-01T00:00:00Z',
      finalizers: ['foregroundDeletion'],
    });
    builder.process(event('update', REPLICA_SET, deleting, owner));
    expect(builder.graph.get('o1')!.deletingDependents).toBe(true);
    expect(await drain(attemptToDelete)).toEqual(['d1', 'o1']);
    // The same state again is no new transition.
    builder.process(event('update', REPLICA_SET, deleting, deleting));
    expect(await drain(attemptToDelete)).toEqual([]);

    const other = object('other', 'o2', 'ns');
    builder.process(event('add', REPLICA_SET, other));
    const orphaning = object('other', 'o2', 'ns', {
      deletionTimestamp: '2025-01-01T00:00:00Z',
      finalizers: ['orphan'],
    });
    builder.process(event('update', REPLICA_SET, orphaning, other));
    expect(await drain(attemptToOrphan)).toEqual(['o2']);
  });

  it('queues the owner waiting on a dependent whose blocking reference goes away', async () => {
    const { builder, attemptToDelete } = setup();
    builder.process(event('add', REPLICA_SET, object('rs', 'o1', 'ns')));
    const blocking = object('a', 'd1', 'ns', {
      ownerReferences: [ref('rs', 'o1', { blockOwnerDeletion: true })],
    });
    builder.process(event('add', CONFIG_MAP, blocking));
    const unblocked = object('a', 'd1', 'ns', {
      ownerReferences: [ref('rs', 'o1', { blockOwnerDeletion: false })],
    });
    builder.process(event('update', CONFIG_MAP, unblocked, blocking));
    expect(await drain(attemptToDelete)).toEqual(['o1']);
    expect(builder.graph.get('o1')!.blockingDependents()).toEqual([]);
  });

  it('keeps a virtual owner whose other identities are still unverified', async () => {
    const { builder, attemptToDelete } = setup();
    builder.process(
      event('add', CONFIG_MAP, object('a', 'd1', 'ns', { ownerReferences: [ref('first', 'o1')] })),
    );
    builder.process(
      event('add', CONFIG_MAP, object('b', 'd2', 'ns', { ownerReferences: [ref('second', 'o1')] })),
    );
    await drain(attemptToDelete);
    builder.enqueueVirtualDeleteEvent({ ...REPLICA_SET, name: 'first', uid: 'o1', namespace: 'ns' });
    const owner = builder.graph.get('o1')!;
    expect(owner.identity.name).toBe('second');
    expect(builder.absentOwners.has({ ...REPLICA_SET, name: 'first', uid: 'o1', namespace: 'ns' })).toBe(
      true,
    );
    expect(await drain(attemptToDelete)).toEqual(['d1']);
    // Once the dependent naming the absent identity is collected, the other identity is checked.
    builder.process(
      event('delete', CONFIG_MAP, object('a', 'd1', 'ns', { ownerReferences: [ref('first', 'o1')] })),
    );
    builder.enqueueVirtualDeleteEvent({ ...REPLICA_SET, name: 'second', uid: 'o1', namespace: 'ns' });
    expect(builder.graph.get('o1')).toBeUndefined();
  });

  it('partitions dependents and finds alternate owner identities', () => {
    const owner = { ...REPLICA_SET, name: 'rs', uid: 'o1', namespace: 'ns' };
    const match = new GraphNode(
      { ...CONFIG_MAP, name: 'm', uid: 'd1', namespace: 'ns' },
      [ref('rs', 'o1')],
      false,
    );
    const renamed = new GraphNode(
      { ...CONFIG_MAP, name: 'r', uid: 'd2', namespace: 'ns' },
      [ref('zz', 'o1')],
      false,
    );
    const away = new GraphNode(
      { ...CONFIG_MAP, name: 'a', uid: 'd3', namespace: 'other' },
      [ref('rs', 'o1')],
      false,
    );
    const [matching, nonmatching] = partitionDependents([match, renamed, away], owner);
    expect(matching).toEqual([match]);
    expect(nonmatching).toEqual([renamed, away]);
    expect(alternateOwnerIdentity([renamed, away], owner)).toEqual({ ...owner, name: 'zz' });
    expect(alternateOwnerIdentity([match], owner)).toBeUndefined();
  });

  it('handles thousands of dependents and leaves nothing behind once they are gone', async () => {
    const { builder, attemptToDelete } = setup();
    const owner = object('rs', 'owner', 'big');
    builder.process(event('add', REPLICA_SET, owner));
    const count = 5000;
    const dependents = Array.from({ length: count }, (_, i) =>
      object(`cm-${i}`, `dep-${i}`, 'big', {
        ownerReferences: [ref('rs', 'owner', { blockOwnerDeletion: true })],
      }),
    );
    for (const dependent of dependents) builder.process(event('add', CONFIG_MAP, dependent));
    expect(builder.graph.size).toBe(count + 1);
    expect(builder.graph.get('owner')!.blockingDependents()).toHaveLength(count);
    expect(attemptToDelete.length).toBe(0);

    builder.process(event('delete', REPLICA_SET, owner));
    expect(attemptToDelete.length).toBe(count);
    for (const dependent of dependents) builder.process(event('delete', CONFIG_MAP, dependent));
    expect(builder.graph.size).toBe(0);
  });
});
