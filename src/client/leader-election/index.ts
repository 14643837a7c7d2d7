export {
  JITTER_FACTOR,
  type LeaderCallbacks,
  type LeaderElectionConfig,
  LeaderElector,
} from './leader-elector.js';
export { type LeaderElectionRecord, LeaseLock, microTime, recordFromLease } from './lease-lock.js';
