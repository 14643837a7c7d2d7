// The node conditions the kubelet owns, with the reasons and messages it writes. A condition's
// lastTransitionTime changes only when its status does; lastHeartbeatTime on every report.
import type { NodeCondition } from '../../api/types/core-v1.generated.js';

export interface NodeHealth {
  /** Empty when the node is ready; else why not (the container runtime or its network). */
  readonly notReadyReasons: readonly string[];
  readonly memoryPressure: boolean;
  readonly diskPressure: boolean;
  readonly pidPressure: boolean;
}

interface ConditionText {
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

function pressure(pressed: boolean, kind: 'memory' | 'disk' | 'PID'): ConditionText {
  if (kind === 'memory') {
    return pressed
      ? {
          status: 'True',
          reason: 'KubeletHasInsufficientMemory',
          message: 'kubelet has insufficient memory available',
        }
      : {
          status: 'False',
          reason: 'KubeletHasSufficientMemory',
          message: 'kubelet has sufficient memory available',
        };
  }
  if (kind === 'disk') {
    return pressed
      ? { status: 'True', reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' }
      : { status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' };
  }
  return pressed
    ? {
        status: 'True',
        reason: 'KubeletHasInsufficientPID',
        message: 'kubelet has insufficient PID available',
      }
    : { status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' };
}

function readiness(health: NodeHealth): ConditionText {
  if (health.notReadyReasons.length === 0) {
    return { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' };
  }
  return { status: 'False', reason: 'KubeletNotReady', message: health.notReadyReasons.join(', ') };
}

/**
 * The kubelet's conditions in the order it lists them (MemoryPressure, DiskPressure, PIDPressure,
 * Ready), carrying over transition times from `previous` where the status did not change.
 */
export function nodeConditions(
  health: NodeHealth,
  previous: readonly NodeCondition[] | undefined,
  now: Date,
): NodeCondition[] {
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const wanted: [string, ConditionText][] = [
    ['MemoryPressure', pressure(health.memoryPressure, 'memory')],
    ['DiskPressure', pressure(health.diskPressure, 'disk')],
    ['PIDPressure', pressure(health.pidPressure, 'PID')],
    ['Ready', readiness(health)],
  ];
  return wanted.map(([type, text]) => {
    const before = previous?.find((condition) => condition.type === type);
    const transitioned = !before || before.status !== text.status;
    return {
      type,
      status: text.status,
      lastHeartbeatTime: time,
      lastTransitionTime: transitioned ? time : (before.lastTransitionTime ?? time),
      reason: text.reason,
      message: text.message,
    };
  });
}

/** Whether two condition lists say the same, ignoring heartbeat times (no need to report). */
export function sameConditions(
  a: readonly NodeCondition[],
  b: readonly NodeCondition[] | undefined,
): boolean {
  if (!b || a.length !== b.length) return false;
  return a.every((condition) => {
    const other = b.find((candidate) => candidate.type === condition.type);
    return (
      other !== undefined &&
      other.status === condition.status &&
      other.reason === condition.reason &&
      other.message === condition.message
    );
  });
}
