// The kubelet's probes: what the pod worker calls to probe its running containers and learn
// their readiness, start-up and liveness.
import { KubeletProbeManager, type ProbeManager, type ProbeManagerOptions } from './probe-manager.js';

export type { ExecSync } from './exec-probe.js';
export type { ProbeKind } from './outcome.js';
export {
  type ProbeAttemptEvent,
  type ProbeManager,
  type ProbeResultEvent,
  probeTerminationGracePeriodSeconds,
} from './probe-manager.js';

export function createProbeManager(options: ProbeManagerOptions): ProbeManager {
  return new KubeletProbeManager(options);
}
