// The Pod printer: READY x/y, the STATUS reason kubectl users know (Init:1/2, CrashLoopBackOff,
// Completed, Terminating, NotReady, ...) and RESTARTS with the time of the last restart.
import type { KubeObject } from '../../api/object.js';
import { at, bool, int, list, str } from './access.js';
import { AGE, column, NAME, wideFieldColumn } from './columns.js';
import { humanDuration, parseTimestamp } from './duration.js';
import { ageOf, isDeleting, nameOf } from './meta.js';
import type { KindPrinter, TableRowCondition } from './types.js';

// The reason the node lifecycle controller gives pods of a node that stopped responding.
const NODE_UNREACHABLE_REASON = 'NodeLost';
const SCHEDULING_GATED = 'SchedulingGated';

const SUCCEEDED_CONDITIONS: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const FAILED_CONDITIONS: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

function hasConditionTrue(pod: KubeObject, type: string): boolean {
  return list(pod, 'status', 'conditions').some(
    (condition) => str(condition, 'type') === type && str(condition, 'status') === 'True',
  );
}

// isPodInitializedConditionTrue looks at the first Initialized condition only.
function initializedConditionTrue(pod: KubeObject): boolean {
  const condition = list(pod, 'status', 'conditions').find((c) => str(c, 'type') === 'Initialized');
  return condition !== undefined && str(condition, 'status') === 'True';
}

/** When the container last terminated (its lastState), or undefined (Go's zero time never wins). */
function lastTermination(status: unknown): number | undefined {
  return parseTimestamp(at(status, 'lastState', 'terminated', 'finishedAt'));
}

function later(current: number | undefined, candidate: number | undefined): number | undefined {
  if (candidate === undefined) return current;
  return current === undefined || candidate > current ? candidate : current;
}

function terminatedReason(terminated: unknown, prefix: string): string {
  const reason = str(terminated, 'reason');
  if (reason !== '') return `${prefix}${reason}`;
  const signal = int(terminated, 'signal');
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${int(terminated, 'exitCode')}`;
}

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  /** Milliseconds since the epoch. */
  lastRestart: number | undefined;
}

function summarize(pod: KubeObject): PodSummary {
  const phase = str(pod, 'status', 'phase');
  let reason = str(pod, 'status', 'reason') || phase;
  for (const condition of list(pod, 'status', 'conditions')) {
    if (str(condition, 'type') === 'PodScheduled' && str(condition, 'reason') === SCHEDULING_GATED) {
      reason = SCHEDULING_GATED;
    }
  }

  const initContainers = new Map<string, unknown>();
  let total = list(pod, 'spec', 'containers').length;
  const specInit = list(pod, 'spec', 'initContainers');
  for (const container of specInit) {
    initContainers.set(str(container, 'name'), container);
    if (str(container, 'restartPolicy') === 'Always') total++;
  }
  const isSidecar = (name: string) => str(initContainers.get(name), 'restartPolicy') === 'Always';

  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  let initializing = false;
  const initStatuses = list(pod, 'status', 'initContainerStatuses');
  for (const [index, status] of initStatuses.entries()) {
    const name = str(status, 'name');
    restarts += int(status, 'restartCount');
    lastRestart = later(lastRestart, lastTermination(status));
    if (isSidecar(name)) {
      sidecarRestarts += int(status, 'restartCount');
      lastSidecarRestart = later(lastSidecarRestart, lastTermination(status));
    }
    const terminated = at(status, 'state', 'terminated');
    const waitingReason = str(status, 'state', 'waiting', 'reason');
    if (terminated !== undefined && int(terminated, 'exitCode') === 0) continue;
    if (isSidecar(name) && bool(status, 'started')) {
      if (bool(status, 'ready')) ready++;
      continue;
    }
    if (terminated !== undefined) reason = terminatedReason(terminated, 'Init:');
    else if (waitingReason !== '' && waitingReason !== 'PodInitializing') reason = `Init:${waitingReason}`;
    else reason = `Init:${index}/${specInit.length}`;
    initializing = true;
    break;
  }

  if (!initializing || initializedConditionTrue(pod)) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(pod, 'status', 'containerStatuses');
    // From the last container to the first, so that the first container's state decides.
    for (const status of [...statuses].reverse()) {
      restarts += int(status, 'restartCount');
      lastRestart = later(lastRestart, lastTermination(status));
      const waitingReason = str(status, 'state', 'waiting', 'reason');
      const terminated = at(status, 'state', 'terminated');
      if (waitingReason !== '') reason = waitingReason;
      else if (terminated !== undefined) reason = terminatedReason(terminated, '');
      else if (bool(status, 'ready') && at(status, 'state', 'running') !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose containers partly completed and partly still run is not Completed.
    if (reason === 'Completed' && hasRunning)
      reason = hasConditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = isDeleting(pod);
  if (deleting && str(pod, 'status', 'reason') === NODE_UNREACHABLE_REASON) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  return { ready, total, reason, restarts, lastRestart };
}

function readinessGates(pod: KubeObject): string {
  const gates = list(pod, 'spec', 'readinessGates');
  if (gates.length === 0) return '<none>';
  const conditions = list(pod, 'status', 'conditions');
  let satisfied = 0;
  for (const gate of gates) {
    const condition = conditions.find((c) => str(c, 'type') === str(gate, 'conditionType'));
    if (condition !== undefined && str(condition, 'status') === 'True') satisfied++;
  }
  return `${satisfied}/${gates.length}`;
}

function podIP(pod: KubeObject): string {
  // A pod written with only status.podIP converts to podIPs holding that address.
  const first = list(pod, 'status', 'podIPs')[0];
  const ip = first === undefined ? str(pod, 'status', 'podIP') : str(first, 'ip');
  return ip || '<none>';
}

export const pods: KindPrinter = {
  columns: [
    NAME,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE,
    wideFieldColumn('IP', 'string', 'core/v1.PodStatus.podIP'),
    wideFieldColumn('Node', 'string', 'core/v1.PodSpec.nodeName'),
    wideFieldColumn('Nominated Node', 'string', 'core/v1.PodStatus.nominatedNodeName'),
    wideFieldColumn('Readiness Gates', 'string', 'core/v1.PodSpec.readinessGates'),
  ],
  row(pod, now) {
    const { ready, total, reason, restarts, lastRestart } = summarize(pod);
    let restartsText = String(restarts);
    if (restarts !== 0 && lastRestart !== undefined) {
      restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`;
    }
    return [
      nameOf(pod),
      `${ready}/${total}`,
      reason,
      restartsText,
      ageOf(pod, now),
      podIP(pod),
      str(pod, 'spec', 'nodeName') || '<none>',
      str(pod, 'status', 'nominatedNodeName') || '<none>',
      readinessGates(pod),
    ];
  },
  conditions(pod) {
    const phase = str(pod, 'status', 'phase');
    if (phase === 'Succeeded') return SUCCEEDED_CONDITIONS;
    if (phase === 'Failed') return FAILED_CONDITIONS;
    return undefined;
  },
};
