// The controller manager's start order: the controllers a new cluster's first pods wait for run
// on their own informers first; the others' informers start, and the others run, only once those
// have synced (against a real in-process control plane).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_MAPS, NAMESPACES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/resources.js';
import { type ControllerDescriptor, DEFAULT_CLUSTER_SETTINGS } from '../../../src/controllers/context.js';
import { ControllerManager, FIRST_CONTROLLERS } from '../../../src/controlplane/controller-manager.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;

beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);

afterAll(async () => {
  await cp?.stop();
});

describe('controller manager start', () => {
  it('starts the other controllers, and their informers, once the first ones have synced', async () => {
    const atRun: Record<string, boolean> = {};
    let probeRan = false;
    // Listed before the first controllers: the order of the list does not put it ahead of them.
    const probe: ControllerDescriptor = {
      name: 'probe',
      create: (context) => {
        const pods = context.informers.informerFor(PODS);
        return {
          run: async (signal) => {
            for (const [name, ref] of Object.entries({ NAMESPACES, SERVICE_ACCOUNTS, CONFIG_MAPS })) {
              atRun[name] = context.informers.informerFor(ref).hasSynced();
            }
            // Started with the other controllers' run: its list has not come back yet.
            atRun.PODS = pods.hasSynced();
            await pods.whenSynced();
            probeRan = !signal.aborted;
          },
        };
      },
    };
    const clients = { client: cp.controlPlane.loopbackClient };
    // With a CA to publish, as a cluster's control plane has.
    const settings = { ...DEFAULT_CLUSTER_SETTINGS, rootCaPem: 'a CA bundle' };
    const manager = new ControllerManager(clients, settings, [probe, ...FIRST_CONTROLLERS]);
    try {
      manager.start();
      await eventually(async () => (probeRan ? true : undefined));
      expect(atRun).toEqual({ NAMESPACES: true, SERVICE_ACCOUNTS: true, CONFIG_MAPS: true, PODS: false });
    } finally {
      await manager.stop();
    }
  });

  it('stops cleanly before the other controllers were started', async () => {
    let built = false;
    const probe: ControllerDescriptor = {
      name: 'probe',
      create: () => {
        built = true;
        return { run: async () => {} };
      },
    };
    const manager = new ControllerManager({ client: cp.controlPlane.loopbackClient }, undefined, [
      ...FIRST_CONTROLLERS,
      probe,
    ]);
    manager.start();
    await manager.stop();
    expect(built).toBe(false);
  });
});
