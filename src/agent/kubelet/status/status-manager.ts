// Writes pod statuses to the apiserver (the kubelet's status manager): the latest status of each
// pod is kept until written, writes for many pods go out together and in parallel, a pod's
// newer status replaces an unsent older one, and failed writes are retried until they succeed or
// the pod is gone. Writes are strategic merge patches of pods/status carrying the pod's uid, so
// a status never lands on a new pod of the same name, and conditions others own stay untouched.
import type { Pod, PodCondition, PodStatus } from '../../../api/types/core-v1.generated.js';
import { PODS } from '../../../client/resources.js';
import { isConflict, isInvalid, isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import { KUBELET_CONDITIONS } from './conditions.js';

const RETRY_MS = 1000;
const DEFAULT_CONCURRENCY = 8;

interface Entry {
  namespace: string;
  name: string;
  uid: string;
  status: PodStatus;
  /** JSON of `status`, to skip writes that change nothing. */
  text: string;
  /** JSON of the status last written. */
  written?: string;
  writing: boolean;
  waiters: (() => void)[];
}

function conditionPatch(condition: PodCondition): Record<string, unknown> {
  return {
    type: condition.type,
    status: condition.status,
    lastProbeTime: null,
    lastTransitionTime: condition.lastTransitionTime ?? null,
    reason: condition.reason ?? null,
    message: condition.message ?? null,
  };
}

/** The strategic merge patch that makes the API's status this one (for the fields the kubelet owns). */
export function statusPatch(uid: string, status: PodStatus): Record<string, unknown> {
  const owned = new Set<string>(KUBELET_CONDITIONS);
  const replace = { $patch: 'replace' };
  return {
    metadata: { uid },
    status: {
      phase: status.phase ?? null,
      reason: status.reason ?? null,
      message: status.message ?? null,
      conditions: (status.conditions ?? []).filter((c) => owned.has(c.type)).map(conditionPatch),
      hostIP: status.hostIP ?? null,
      hostIPs: status.hostIPs ? [replace, ...status.hostIPs] : null,
      podIP: status.podIP ?? null,
      podIPs: status.podIPs ? [replace, ...status.podIPs] : null,
      startTime: status.startTime ?? null,
      qosClass: status.qosClass ?? null,
      containerStatuses: status.containerStatuses ?? null,
      initContainerStatuses: status.initContainerStatuses ?? null,
      ephemeralContainerStatuses: status.ephemeralContainerStatuses ?? null,
    },
  };
}

export interface StatusManagerOptions {
  readonly concurrency?: number;
  readonly log?: (message: string) => void;
  /**
   * The uid of the API object a pod's status goes to when it is not the pod's own: a static
   * pod's mirror pod, or null while it has none (the write waits for `rewrite`).
   */
  readonly apiUid?: (uid: string) => string | null | undefined;
}

export class StatusManager {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  private active = 0;
  private scheduled = false;
  private readonly concurrency: number;
  private readonly log: (message: string) => void;
  private readonly apiUid: (uid: string) => string | null | undefined;
  private stopped = false;

  constructor(
    private readonly client: Client,
    options: StatusManagerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.log = options.log ?? ((message) => console.error(message));
    this.apiUid = options.apiUid ?? (() => undefined);
  }

  /** The status last set for the pod, if any. */
  get(uid: string): PodStatus | undefined {
    return this.entries.get(uid)?.status;
  }

  /** Makes `status` the pod's status; it is written soon unless it equals what was written. */
  set(pod: Pod, status: PodStatus): void {
    const meta = pod.metadata ?? {};
    const uid = meta.uid ?? '';
    const text = JSON.stringify(status);
    let entry = this.entries.get(uid);
    if (!entry) {
      entry = {
        namespace: meta.namespace ?? '',
        name: meta.name ?? '',
        uid,
        status,
        text,
        writing: false,
        waiters: [],
      };
      this.entries.set(uid, entry);
    }
    entry.status = status;
    entry.text = text;
    if (entry.written === text) {
      this.release(entry);
      return;
    }
    this.dirty.add(uid);
    this.schedule();
  }

  /** Resolves once the pod's latest status has been written (or the pod is gone). */
  flushed(uid: string): Promise<void> {
    const entry = this.entries.get(uid);
    if (!entry || (entry.written === entry.text && !this.dirty.has(uid))) return Promise.resolve();
    return new Promise((resolve) => entry.waiters.push(resolve));
  }

  /** Writes the pod's status again although it was written: its API object is a new one. */
  rewrite(uid: string): void {
    const entry = this.entries.get(uid);
    if (!entry) return;
    entry.written = undefined;
    this.dirty.add(uid);
    this.schedule();
  }

  /** Stops tracking a pod that is gone. */
  forget(uid: string): void {
    const entry = this.entries.get(uid);
    this.entries.delete(uid);
    this.dirty.delete(uid);
    if (entry) this.release(entry, true);
  }

  stop(): void {
    this.stopped = true;
  }

  private release(entry: Entry, always = false): void {
    if (!always && (entry.written !== entry.text || this.dirty.has(entry.uid))) return;
    for (const resolve of entry.waiters.splice(0)) resolve();
  }

  private schedule(delayMs = 0): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      this.pump();
    };
    if (delayMs > 0) setTimeout(run, delayMs).unref();
    else setImmediate(run);
  }

  private pump(): void {
    for (const uid of this.dirty) {
      if (this.active >= this.concurrency) return;
      const entry = this.entries.get(uid);
      if (!entry) {
        this.dirty.delete(uid);
        continue;
      }
      if (entry.writing) continue;
      this.dirty.delete(uid);
      this.active++;
      void this.write(entry).finally(() => {
        this.active--;
        if (this.dirty.size > 0) this.schedule();
      });
    }
  }

  private async write(entry: Entry): Promise<void> {
    const text = entry.text;
    const target = this.apiUid(entry.uid);
    if (target === null) {
      // Nothing in the API to write to yet: `rewrite` comes once there is.
      entry.written = text;
      this.release(entry);
      return;
    }
    entry.writing = true;
    try {
      await this.client
        .resource<Pod>(PODS)
        .patch(entry.namespace, entry.name, 'strategic', statusPatch(target ?? entry.uid, entry.status), {
          subresource: 'status',
        });
      entry.written = text;
    } catch (error) {
      if (isNotFound(error) || isConflict(error) || isInvalid(error)) {
        // The pod is gone or is another pod by now (its uid differs): nothing to write any more.
        if (!isNotFound(error)) {
          this.log(`kubelet: status of pod ${entry.namespace}/${entry.name} not written: ${String(error)}`);
        }
        entry.written = text;
      } else {
        this.log(
          `kubelet: failed to update status of pod ${entry.namespace}/${entry.name}: ${error instanceof Error ? error.message : String(error)}`,
        );
        if (this.entries.get(entry.uid) === entry) {
          this.dirty.add(entry.uid);
          entry.writing = false;
          this.schedule(RETRY_MS);
          return;
        }
      }
    } finally {
      entry.writing = false;
    }
    if (entry.text !== text && this.entries.get(entry.uid) === entry) this.dirty.add(entry.uid);
    this.release(entry);
  }
}
