// DefaultBinder: binds through the API (pods/binding) via the scheduler's Binder.
import type { PodInfo } from '../cache/pod-info.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { BindPlugin } from '../framework/interfaces.js';
import type { Status } from '../framework/status.js';
import { PluginNames } from './names.js';

/** Binds a pod to a node (POST pods/binding). */
export interface Binder {
  bind(binding: PodBinding): Promise<void>;
}

/** What a v1.Binding carries: the pod (namespace, name, uid) and the target node. */
export interface PodBinding {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
  readonly nodeName: string;
}

export class DefaultBinder implements BindPlugin {
  readonly name = PluginNames.DefaultBinder;

  constructor(private readonly binder: Binder) {}

  async bind(_state: CycleState, podInfo: PodInfo, nodeName: string): Promise<Status | null> {
    await this.binder.bind({
      namespace: podInfo.namespace,
      name: podInfo.name,
      uid: podInfo.pod.metadata?.uid,
      nodeName,
    });
    return null;
  }
}
