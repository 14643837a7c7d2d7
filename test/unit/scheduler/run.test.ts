// The scheduler wired to an in-process control plane with two simulated nodes: informers in,
// pods/binding, status patches and events out, as system:kube-scheduler (RBAC applies).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, Pod } from '../../../src/api/types/core-v1.generated.js';
import { EventBroadcaster } from '../../../src/client/events/index.js';
import { SharedInformerFactory } from '../../../src/client/informers/index.js';
import { EVENTS, PODS } from '../../../src/client/resources.js';
import { SCHEDULER_IDENTITY } from '../../../src/controlplane/loopback.js';
import { createScheduler } from '../../../src/scheduler/run.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cluster: InProcessControlPlane;
let broadcaster: EventBroadcaster;
const stop = new AbortController();

beforeAll(async () => {
  cluster = await startInProcessControlPlane({
    fakeNodes: { count: 2, capacity: { cpu: '2', memory: '4Gi', pods: '10' } },
  });
  const client = cluster.controlPlane.loopbackClient(SCHEDULER_IDENTITY, 'kube-scheduler');
  const informers = new SharedInformerFactory(client);
  broadcaster = new EventBroadcaster(client);
  const { run } = createScheduler({
    client,
    informers,
    recorder: broadcaster.newRecorder({ component: 'default-scheduler' }),
  });
  informers.start(stop.signal);
  void run(stop.signal);
}, 60_000);

afterAll(async () => {
  stop.abort();
  await broadcaster?.shutdown();
  await cluster?.stop();
});

describe('the scheduler against the API server', () => {
  it('binds pods and reports the ones that fit nowhere', async () => {
    const pods = cluster.admin.resource<Pod>(PODS);
    const container = (cpu: string) => [{ name: 'c', image: 'busybox', resources: { requests: { cpu } } }];
    await pods.create({
      metadata: { name: 'small', namespace: 'default' },
      spec: { containers: container('1') },
    });
    await pods.create({
      metadata: { name: 'huge', namespace: 'default' },
      spec: { containers: container('4') },
    });

    const node = await eventually(
      async () => (await pods.get('default', 'small')).spec?.nodeName || undefined,
    );
    expect(node).toBeTruthy();

    const condition = await eventually(async () => {
      const current = await pods.get('default', 'huge');
      return current.status?.conditions?.find((candidate) => candidate.type === 'PodScheduled');
    });
    const message =
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    expect(condition).toMatchObject({ status: 'False', reason: 'Unschedulable', message });

    await broadcaster.flush();
    const events = await cluster.admin.resource<Event>(EVENTS).list('default');
    const reasons = events.items.map(
      (event) => `${event.involvedObject.name}:${event.reason}:${event.message}`,
    );
    expect(reasons).toContain(`small:Scheduled:Successfully assigned default/small to ${node}`);
    expect(reasons).toContain(`huge:FailedScheduling:${message}`);
  });
});
