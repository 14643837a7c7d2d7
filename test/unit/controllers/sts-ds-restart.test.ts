// Restart safety of the StatefulSet and DaemonSet controllers: the whole control plane stopped
// mid-rollout and started again on the same state picks up where it was, with no pod created
// twice and none lost (both controllers keep no state that the API does not hold).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DaemonSet, StatefulSet } from '../../../src/api/types/apps-v1.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { DAEMON_SETS, PODS, STATEFUL_SETS } from '../../../src/client/resources.js';
import type { Client } from '../../../src/client/types.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { eventually } from '../../support/control-plane.js';

const NS = 'default';
const dir = mkdtempSync(join(tmpdir(), 'tkube-sd-restart-'));
let running: RunningControlPlane | undefined;
afterAll(async () => {
  await running?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<Client> {
  running = await startControlPlane({ stateDir: dir, apiPort: 0, fakeNodes: { count: 2 } });
  return running.loopbackClient(
    { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
    'test',
  );
}

const live = async (client: Client, app: string) =>
  (await client.resource<Pod>(PODS).list(NS, { labelSelector: `app=${app}` })).items.filter(
    (pod) => !pod.metadata?.deletionTimestamp,
  );

describe('statefulset and daemonset controllers across a control-plane restart', () => {
  it('finish their rollouts without duplicate or lost pods', async () => {
    let client = await start();
    await client.resource<StatefulSet>(STATEFUL_SETS).create({
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
        },
      },
    });
    await client.resource<DaemonSet>(DAEMON_SETS).create({
      metadata: { name: 'agent', namespace: NS },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
        },
      },
    });
    // Stop once the StatefulSet is part way.
    const before = await eventually(async () => {
      const pods = await live(client, 'web');
      return pods.length >= 2 ? pods : undefined;
    }, 20_000);
    await running!.stop();
    running = undefined;
    client = await start();
    const after = await eventually(async () => {
      const set = await client.resource<StatefulSet>(STATEFUL_SETS).get(NS, 'web');
      return set.status?.readyReplicas === 4 ? live(client, 'web') : undefined;
    }, 30_000);
    expect(after.map((p) => p.metadata!.name).sort()).toEqual(['web-0', 'web-1', 'web-2', 'web-3']);
    // The pods made before the restart are the same pods.
    for (const pod of before) {
      expect(after.find((p) => p.metadata!.name === pod.metadata!.name)!.metadata!.uid).toBe(
        pod.metadata!.uid,
      );
    }
    const ds = await eventually(async () => {
      const d = await client.resource<DaemonSet>(DAEMON_SETS).get(NS, 'agent');
      return d.status?.numberAvailable === 2 ? d : undefined;
    }, 30_000);
    expect(ds.status!.desiredNumberScheduled).toBe(2);
    const agents = await live(client, 'agent');
    expect(agents).toHaveLength(2);
    expect(new Set(agents.map((p) => p.spec!.nodeName)).size).toBe(2);
  }, 90_000);
});
