// kube-controller-manager and kube-scheduler, started and stopped together: on the apiserver's
// thread (tests that start a control plane in their own process), or each on a thread of its own.
import type { SharedInformerFactory } from '../client/informers/index.js';
import type { ClusterSettings } from '../controllers/context.js';
import { ControllerManager } from './controller-manager.js';
import type { LoopbackClients } from './loopback.js';
import { SchedulerHost } from './scheduler-host.js';

/** The upstream processes tkube runs: `controller-manager` (with any fake nodes) and `scheduler`. */
export type ComponentName = 'controller-manager' | 'scheduler';
export const COMPONENT_NAMES: readonly ComponentName[] = ['controller-manager', 'scheduler'];

export interface Components {
  /** The controller manager's shared informers, when it runs here. */
  readonly informers?: SharedInformerFactory;
  /** Stops the scheduler, then the controllers; resolves once both have. */
  stop(): Promise<void>;
}

/** Starts the named components (both by default) on this thread, with `clients` as their connection. */
export function startComponents(
  clients: LoopbackClients,
  settings: ClusterSettings,
  names: readonly ComponentName[] = COMPONENT_NAMES,
): Components {
  const controllerManager = names.includes('controller-manager')
    ? new ControllerManager(clients, settings)
    : undefined;
  controllerManager?.start();
  const scheduler = names.includes('scheduler') ? new SchedulerHost(clients) : undefined;
  scheduler?.start();
  return {
    informers: controllerManager?.informers,
    async stop() {
      await scheduler?.stop();
      await controllerManager?.stop();
    },
  };
}
