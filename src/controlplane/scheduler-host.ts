// The in-process kube-scheduler: its own informers and client as `system:kube-scheduler` over
// the loopback, so RBAC applies to it as to the real one, and events from `default-scheduler`.
import { setMaxListeners } from 'node:events';
import { EventBroadcaster } from '../client/events/index.js';
import { SharedInformerFactory, stripManagedFields } from '../client/informers/index.js';
import { createScheduler } from '../scheduler/index.js';
import { type LeaderElectionSettings, runLeaderElected, type Stoppable } from './leader-elected.js';
import { type LoopbackClients, SCHEDULER_IDENTITY } from './loopback.js';

export class SchedulerHost {
  private readonly abort = new AbortController();
  private readonly informers: SharedInformerFactory;
  private readonly events: EventBroadcaster;
  private running: Promise<void> | undefined;

  constructor(loopback: LoopbackClients) {
    const client = loopback.client(SCHEDULER_IDENTITY, 'kube-scheduler');
    this.informers = new SharedInformerFactory(client, { transform: stripManagedFields });
    this.events = new EventBroadcaster(client);
  }

  start(): void {
    const signal = this.abort.signal;
    setMaxListeners(0, signal);
    const { run } = createScheduler({
      client: this.informers.client,
      informers: this.informers,
      recorder: this.events.newRecorder({ component: 'default-scheduler' }),
    });
    this.informers.start(signal);
    this.running = run(signal).catch((error: unknown) => console.error(`scheduler failed: ${String(error)}`));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    await this.events.shutdown();
    await this.informers.stop();
  }
}

/** A scheduler, under its Lease `kube-scheduler` when leader election is on. */
export function startScheduler(clients: LoopbackClients, leaderElection?: LeaderElectionSettings): Stoppable {
  const start = (): SchedulerHost => {
    const scheduler = new SchedulerHost(clients);
    scheduler.start();
    return scheduler;
  };
  if (!leaderElection) return start();
  return runLeaderElected(
    clients.client(SCHEDULER_IDENTITY, 'kube-scheduler'),
    'kube-scheduler',
    leaderElection,
    start,
  );
}
