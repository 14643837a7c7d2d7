// PrioritySort: the queue order — higher priority first, then the pod that entered the queue first.
import type { QueueSortPlugin } from '../framework/interfaces.js';
import type { QueuedPodInfo } from '../framework/queued-pod-info.js';
import { PluginNames } from './names.js';

export function priorityLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
  const priorityA = a.podInfo.priority;
  const priorityB = b.podInfo.priority;
  return priorityA > priorityB || (priorityA === priorityB && a.timestamp < b.timestamp);
}

export class PrioritySort implements QueueSortPlugin {
  readonly name = PluginNames.PrioritySort;

  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    return priorityLess(a, b);
  }
}
