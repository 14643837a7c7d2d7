// SchedulingGates: a pod with spec.schedulingGates stays out of the active queue until they are
// all removed.
import type { Pod } from '../../api/types/core-v1.generated.js';
import { podKey } from '../cache/pod-info.js';
import { ActionType } from '../framework/events.js';
import type { ClusterEventWithHint, EnqueueExtensions, PreEnqueuePlugin } from '../framework/interfaces.js';
import { Status } from '../framework/status.js';
import { PluginNames } from './names.js';

export class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  readonly name = PluginNames.SchedulingGates;

  preEnqueue(pod: Pod): Status | null {
    const gates = pod.spec?.schedulingGates ?? [];
    if (gates.length === 0) return null;
    return Status.unresolvable(`waiting for scheduling gates: [${gates.map((gate) => gate.name).join(' ')}]`);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodSchedulingGatesEliminated },
        hint: (pod, _oldObj, newObj) =>
          isPodObject(newObj) && podKey(newObj) === podKey(pod) ? 'Queue' : 'QueueSkip',
      },
    ];
  }
}

export function isPodObject(value: unknown): value is Pod {
  return typeof value === 'object' && value !== null && 'metadata' in value;
}
