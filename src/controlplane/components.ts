// kube-controller-manager and kube-scheduler, started and stopped together: on the apiserver's
// thread (tests that start a control plane in their own process), or on a thread of their own.
import type { ClusterSettings } from '../controllers/context.js';
import { ControllerManager } from './controller-manager.js';
import type { LoopbackClients } from './loopback.js';
import { SchedulerHost } from './scheduler-host.js';

export interface Components {
  /** Stops the scheduler, then the controllers; resolves once both have. */
  stop(): Promise<void>;
}

/** Starts the controllers and the scheduler on this thread, with `clients` as their connection. */
export function startComponents(clients: LoopbackClients, settings: ClusterSettings): Components {
  const controllerManager = new ControllerManager(clients, settings);
  controllerManager.start();
  const scheduler = new SchedulerHost(clients);
  scheduler.start();
  return {
    async stop() {
      await scheduler.stop();
      await controllerManager.stop();
    },
  };
}
