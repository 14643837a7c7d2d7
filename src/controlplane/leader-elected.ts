// A component run only while this control plane holds its Lease (kube-controller-manager's and
// kube-scheduler's --leader-elect): with several control planes, one controller manager and one
// scheduler act at a time. Upstream exits the process when leadership is lost; here the
// component is stopped and this candidate campaigns again, so the apiserver beside it lives on.
import { LeaderElector } from '../client/leader-election/index.js';
import type { Client } from '../client/types.js';

/** kube-system, where upstream's components keep their Leases. */
const LEASE_NAMESPACE = 'kube-system';

export interface LeaderElectionSettings {
  /** This candidate (`<hostname>_<uuid>` upstream), the same for both components of a control plane. */
  readonly identity: string;
}

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Campaigns for Lease `leaseName` and runs `start()` while leading (upstream's durations:
 * lease 15 s, renew deadline 10 s, retry 2 s). Stopping releases the Lease, so a control plane
 * stopped on purpose hands over at once instead of after the lease duration.
 */
export function runLeaderElected(
  client: Client,
  leaseName: string,
  settings: LeaderElectionSettings,
  start: () => Stoppable,
): Stoppable {
  const abort = new AbortController();
  const campaign = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      let running: Stoppable | undefined;
      let stopped: Promise<void> = Promise.resolve();
      const elector = new LeaderElector({
        client,
        namespace: LEASE_NAMESPACE,
        name: leaseName,
        identity: settings.identity,
        releaseOnCancel: true,
        log: (message) => console.error(`${leaseName}: ${message}`),
        callbacks: {
          onStartedLeading: (signal) => {
            const started = start();
            running = started;
            signal.addEventListener('abort', () => {
              stopped = started.stop().catch((error: unknown) => {
                console.error(`${leaseName}: stop failed: ${String(error)}`);
              });
            });
          },
          onStoppedLeading: () => {},
        },
      });
      await elector.run(abort.signal);
      await stopped;
      if (running && !abort.signal.aborted) console.error(`${leaseName}: leaderelection lost`);
    }
  };
  const done = campaign().catch((error: unknown) => console.error(`${leaseName}: ${String(error)}`));
  return {
    async stop() {
      abort.abort();
      await done;
    },
  };
}
