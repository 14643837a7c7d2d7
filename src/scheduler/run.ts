// Runs kube-scheduler against an API server: informers in, API calls out.
import type { EventRecorder } from '../client/events/index.js';
import { type SharedInformerFactory, waitForCacheSync } from '../client/informers/index.js';
import type { Client } from '../client/types.js';
import { clientEffects } from './client-effects.js';
import { connectInformers } from './informer-inputs.js';
import { Scheduler, type SchedulerOptions } from './scheduler.js';

export interface RunSchedulerOptions extends Omit<SchedulerOptions, 'effects'> {
  /** A client with the system:kube-scheduler identity. */
  readonly client: Client;
  readonly informers: SharedInformerFactory;
  /** Events with source component `default-scheduler`. */
  readonly recorder?: EventRecorder;
}

/** Builds the scheduler and registers its informers (start the factory, then call `run`). */
export function createScheduler(options: RunSchedulerOptions): {
  scheduler: Scheduler;
  run(signal: AbortSignal): Promise<void>;
} {
  const scheduler = new Scheduler({
    ...options,
    effects: clientEffects({
      client: options.client,
      recorder: options.recorder,
      now: options.now,
      log: options.log,
    }),
  });
  const informers = connectInformers(scheduler, options.informers);
  return {
    scheduler,
    async run(signal) {
      if (!(await waitForCacheSync(signal, informers))) return;
      await scheduler.run(signal);
    },
  };
}
