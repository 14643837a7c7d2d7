// The scheduler's public surface.
export {
  ERR_NO_NODES_AVAILABLE,
  numFeasibleNodesToFind,
  type ScheduleResult,
  SchedulingAlgorithm,
  selectHost,
} from './algorithm.js';
export { SchedulerCache } from './cache/cache.js';
export { NodeInfo } from './cache/node-info.js';
export { PodInfo, podKey } from './cache/pod-info.js';
export { Snapshot } from './cache/snapshot.js';
export { type ClientEffectsOptions, clientEffects } from './client-effects.js';
export { ClusterObjects } from './cluster-objects.js';
export {
  disruptionTargetCondition,
  failedSchedulingEvent,
  podScheduledCondition,
  preemptedEvent,
  type SchedulingEvent,
  type SchedulingFailure,
  scheduledEvent,
  truncateMessage,
} from './failure.js';
export { CycleState } from './framework/cycle-state.js';
export { FitError, fitErrorMessage } from './framework/fit-error.js';
export { Framework, type PluginEntry, type ProfileConfig } from './framework/framework.js';
export type { FrameworkHandle } from './framework/handle.js';
export { NodeToStatus } from './framework/node-to-status.js';
export { Code, Status } from './framework/status.js';
export { connectInformers } from './informer-inputs.js';
export type { Binder, PodBinding } from './plugins/default-binder.js';
export type { PreemptionExecutor } from './plugins/default-preemption/plugin.js';
export { DEFAULT_SCHEDULER_NAME, defaultPlugins, defaultProfile } from './plugins/registry.js';
export { SchedulingQueue } from './queue/scheduling-queue.js';
export { createScheduler, type RunSchedulerOptions } from './run.js';
export { Scheduler, type SchedulerEffects, type SchedulerOptions } from './scheduler.js';
