// Pods held at Permit (framework's waitingPodsMap): each waits until every plugin that asked it to
// wait allows it, any plugin rejects it, or a plugin's timeout passes.
import type { PodInfo } from '../cache/pod-info.js';
import { Code, Status } from './status.js';

interface WaitingPod {
  readonly podInfo: PodInfo;
  readonly pending: Set<string>;
  readonly timers: ReturnType<typeof setTimeout>[];
  readonly done: Promise<Status | null>;
  settle(status: Status | null): void;
}

export class WaitingPods {
  private readonly pods = new Map<string, WaitingPod>();

  add(podInfo: PodInfo, waits: ReadonlyMap<string, number>): void {
    let settle: (status: Status | null) => void = () => {};
    const done = new Promise<Status | null>((resolve) => {
      settle = resolve;
    });
    const waiting: WaitingPod = { podInfo, pending: new Set(waits.keys()), timers: [], done, settle };
    for (const [plugin, timeoutMs] of waits) {
      const timer = setTimeout(
        () => this.reject(podInfo.key, plugin, 'rejected due to timeout after waiting at permit'),
        timeoutMs,
      );
      timer.unref?.();
      waiting.timers.push(timer);
    }
    this.pods.set(podInfo.key, waiting);
  }

  has(key: string): boolean {
    return this.pods.has(key);
  }

  keys(): IterableIterator<string> {
    return this.pods.keys();
  }

  /** One plugin allows the pod; it proceeds once all have. */
  allow(key: string, plugin: string): void {
    const waiting = this.pods.get(key);
    if (waiting === undefined) return;
    waiting.pending.delete(plugin);
    if (waiting.pending.size === 0) this.finish(key, null);
  }

  reject(key: string, plugin: string, message: string): void {
    if (!this.pods.has(key)) return;
    this.finish(key, new Status(Code.Unschedulable, [message]).withPlugin(plugin));
  }

  async wait(key: string): Promise<Status | null> {
    const waiting = this.pods.get(key);
    return waiting === undefined ? null : waiting.done;
  }

  private finish(key: string, status: Status | null): void {
    const waiting = this.pods.get(key);
    if (waiting === undefined) return;
    for (const timer of waiting.timers) clearTimeout(timer);
    this.pods.delete(key);
    waiting.settle(status);
  }
}
