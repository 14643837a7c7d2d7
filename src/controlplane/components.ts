// kube-controller-manager and kube-scheduler, started and stopped together: on the apiserver's
// thread (tests that start a control plane in their own process), or each on a thread of its own.
// Fake nodes run beside the controller manager and read through its informers.
import type { ClusterSettings } from '../controllers/context.js';
import { FakeNodes, type FakeNodesOptions } from '../providers/fake/index.js';
import { ControllerManager, MANAGER_IDENTITY } from './controller-manager.js';
import { type LeaderElectionSettings, runLeaderElected, type Stoppable } from './leader-elected.js';
import type { LoopbackClients } from './loopback.js';
import { SchedulerHost, startScheduler } from './scheduler-host.js';

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
  leaderElection?: LeaderElectionSettings,
): Components {
  if (leaderElection) return startElectedComponents(clients, settings, names, leaderElection, fakeNodes);
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

/**
 * With several control planes: each component under its Lease, the fake nodes with the
 * controller manager (one set of kubelets for the cluster, moving with the leadership). Ready
 * at once: which control plane will lead is not this one's to wait for.
 */
function startElectedComponents(
  clients: LoopbackClients,
  settings: ClusterSettings,
  names: readonly ComponentName[],
  leaderElection: LeaderElectionSettings,
  fakeNodes?: FakeNodesOptions,
): Components {
  const elected: Stoppable[] = [];
  if (names.includes('controller-manager')) {
    const client = clients.client(MANAGER_IDENTITY, 'kube-controller-manager');
    elected.push(
      runLeaderElected(client, 'kube-controller-manager', leaderElection, () => {
        const components = startComponents(clients, settings, ['controller-manager'], fakeNodes);
        components.ready.catch((error: unknown) =>
          console.error(`fake nodes failed to start: ${String(error)}`),
        );
        return components;
      }),
    );
  }
  if (names.includes('scheduler')) {
    elected.push(startScheduler(clients, leaderElection));
  }
  return {
    ready: Promise.resolve(),
    async stop() {
      for (const component of elected.reverse()) await component.stop();
    },
  };
}
