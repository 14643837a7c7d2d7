// A scheduler with recording effects, standing in for the API server in tests: bindings are
// applied by feeding the bound pod back as an update, as the pod informer would.
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import type { SchedulingEvent, SchedulingFailure } from '../../../src/scheduler/failure.js';
import type { PodBinding } from '../../../src/scheduler/plugins/default-binder.js';
import { Scheduler, type SchedulerOptions } from '../../../src/scheduler/scheduler.js';

export interface Harness {
  readonly scheduler: Scheduler;
  readonly pods: Map<string, Pod>;
  readonly bindings: PodBinding[];
  readonly failures: SchedulingFailure[];
  readonly events: { pod: string; event: SchedulingEvent }[];
  readonly preempted: { victim: string; preemptor: string; node: string }[];
  clock: { now: number };
  /** Adds a pending pod (through onPodAdd). */
  add(pod: Pod): void;
  /** Runs cycles until the queue has nothing ready, applying bindings as bound-pod updates. */
  drain(): Promise<void>;
  /** The node a pod is bound to, if any. */
  nodeOf(name: string): string | undefined;
  /** Deletes a pod as the API server would report it. */
  remove(name: string): void;
  lastFailure(name: string): SchedulingFailure | undefined;
}

export interface HarnessOptions extends Partial<SchedulerOptions> {
  failBind?: (binding: PodBinding) => Error | undefined;
  /** Victims only start terminating (deletionTimestamp, DisruptionTarget) instead of vanishing. */
  gracefulVictims?: boolean;
}

export function harness(options: HarnessOptions = {}): Harness {
  const pods = new Map<string, Pod>();
  const bindings: PodBinding[] = [];
  const failures: SchedulingFailure[] = [];
  const events: Harness['events'] = [];
  const preempted: Harness['preempted'] = [];
  const clock = { now: 1_700_000_000_000 };
  const pendingBinds: PodBinding[] = [];
  let counter = 1;
  const scheduler: Scheduler = new Scheduler({
    now: () => clock.now,
    random: () => 0,
    ...options,
    effects: {
      bind: async (binding) => {
        const error = options.failBind?.(binding);
        if (error !== undefined) throw error;
        bindings.push(binding);
        pendingBinds.push(binding);
      },
      reportFailure: (failure) => {
        failures.push(failure);
        const name = failure.pod.metadata!.name!;
        const current = pods.get(name);
        if (current !== undefined && failure.nominatedNodeName !== undefined) {
          const updated: Pod = {
            ...current,
            metadata: { ...current.metadata, resourceVersion: String(++counter) },
            status: { ...current.status, nominatedNodeName: failure.nominatedNodeName || undefined },
          };
          pods.set(name, updated);
          scheduler.onPodUpdate(current, updated);
        }
      },
      recordEvent: (pod, event) => events.push({ pod: pod.metadata!.name!, event }),
      preemptVictim: async (victim, preemptor, node) => {
        preempted.push({ victim: victim.metadata!.name!, preemptor: preemptor.metadata!.name!, node });
        const current = pods.get(victim.metadata!.name!);
        if (current === undefined) return;
        if (options.gracefulVictims) {
          const terminating: Pod = {
            ...current,
            metadata: {
              ...current.metadata,
              resourceVersion: String(++counter),
              deletionTimestamp: '2024-01-01T00:00:00Z',
            },
            status: {
              ...current.status,
              conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }],
            },
          };
          pods.set(victim.metadata!.name!, terminating);
          scheduler.onPodUpdate(current, terminating);
          return;
        }
        pods.delete(victim.metadata!.name!);
        scheduler.onPodDelete(current);
      },
      clearNominatedNodeName: async () => {},
    },
  });
  const applyBindings = () => {
    for (const binding of pendingBinds.splice(0)) {
      const current = pods.get(binding.name);
      if (current === undefined) continue;
      const bound: Pod = {
        ...current,
        metadata: { ...current.metadata, resourceVersion: String(++counter) },
        spec: { ...current.spec!, nodeName: binding.nodeName },
        status: { ...current.status, phase: 'Running' },
      };
      pods.set(binding.name, bound);
      scheduler.onPodUpdate(current, bound);
    }
  };
  return {
    scheduler,
    pods,
    bindings,
    failures,
    events,
    preempted,
    clock,
    add(pod) {
      pods.set(pod.metadata!.name!, pod);
      scheduler.onPodAdd(pod);
    },
    async drain() {
      for (let round = 0; round < 1000; round++) {
        let progressed = false;
        while (scheduler.scheduleOne()) progressed = true;
        await scheduler.idle();
        const hadBindings = pendingBinds.length > 0;
        applyBindings();
        if (!progressed && !hadBindings) return;
      }
      throw new Error('scheduler did not settle');
    },
    nodeOf(name) {
      return pods.get(name)?.spec?.nodeName;
    },
    remove(name) {
      const current = pods.get(name);
      if (current === undefined) return;
      pods.delete(name);
      scheduler.onPodDelete(current);
    },
    lastFailure(name) {
      return failures.filter((failure) => failure.pod.metadata?.name === name).at(-1);
    },
  };
}
