// kube-controller-manager and kube-scheduler, started and stopped together: on the apiserver's
// thread (tests that start a control plane in their own process), or each on a thread of its own.
// Fake nodes run beside the controller manager and read through its informers.
import type { ClusterSettings } from '../controllers/context.js';
import { FakeNodes, type FakeNodesOptions } from '../providers/fake/index.js';
import { ControllerManager } from './controller-manager.js';
import type { LoopbackClients } from './loopback.js';
import { SchedulerHost } from './scheduler-host.js';

/** The upstream processes tkube runs: `controller-manager` (with any fake nodes) and `scheduler`. */
export type ComponentName = 'controller-manager' | 'scheduler';
export const COMPONENT_NAMES: readonly ComponentName[] = ['controller-manager', 'scheduler'];

export interface Components {
  /** The fake nodes, when asked for and the controller manager runs here. */
  readonly fakeNodes?: FakeNodes;
  /** Settles once the fake nodes (if any) are Ready. */
  readonly ready: Promise<void>;
  /** Stops the fake nodes, the scheduler, then the controllers; resolves once all have. */
  stop(): Promise<void>;
}

/**
 * Starts the named components (both by default) on this thread, with `clients` as their
 * connection, and `fakeNodes` beside the controller manager.
 */
export function startComponents(
  clients: LoopbackClients,
  settings: ClusterSettings,
  names: readonly ComponentName[] = COMPONENT_NAMES,
  fakeNodes?: FakeNodesOptions,
): Components {
  const controllerManager = names.includes('controller-manager')
    ? new ControllerManager(clients, settings)
    : undefined;
  controllerManager?.start();
  const scheduler = names.includes('scheduler') ? new SchedulerHost(clients) : undefined;
  scheduler?.start();
  const nodes =
    controllerManager && fakeNodes?.count
      ? new FakeNodes(
          (identity, component) => clients.client(identity, component),
          fakeNodes,
          controllerManager.informers,
        )
      : undefined;
  return {
    fakeNodes: nodes,
    ready: nodes?.start() ?? Promise.resolve(),
    async stop() {
      // Stopping the fake nodes also ends a start still waiting for them to be Ready.
      await nodes?.stop();
      await scheduler?.stop();
      await controllerManager?.stop();
    },
  };
}
