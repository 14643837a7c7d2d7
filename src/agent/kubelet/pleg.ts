// The pod lifecycle event generator: relists the runtime every second and reports the pods whose
// sandboxes or containers changed state (a container exited, a sandbox died), so their workers
// sync without polling each pod. Pods the runtime holds without any known owner show up too.
import type { CriClient } from './cri/client.js';
import type { RuntimeCounts } from './metrics.js';
import { POD_UID_LABEL } from './runtime/labels.js';
import { type PodRuntime, runtimeContainerState } from './runtime/pod-runtime.js';

const RELIST_INTERVAL_MS = 1000;
/** The kubelet's PLEG counts as unhealthy when its last relist is older than this. */
const RELIST_THRESHOLD_MS = 3 * 60_000;

export interface RelistResult {
  /** Every pod uid the runtime holds something for. */
  readonly uids: ReadonlySet<string>;
  /** Ids of every sandbox and container. */
  readonly ids: ReadonlySet<string>;
  /** Ready sandboxes and containers by state, for the kubelet's gauges. */
  readonly counts: RuntimeCounts;
  /** How long the relist took. */
  readonly seconds: number;
}

function fingerprint(entries: readonly string[]): string {
  return [...entries].sort().join(',');
}

export class Pleg {
  private readonly seen = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private lastRelist = Date.now();
  private lastCounts: RuntimeCounts | undefined;

  constructor(
    private readonly cri: CriClient,
    private readonly onChange: (uid: string) => void,
    private readonly onRelist: (result: RelistResult) => void = () => {},
    private readonly log: (message: string) => void = (message) => console.error(message),
  ) {}

  /** What a sync just saw of a pod: no event for it unless it changes again. */
  remember(runtime: PodRuntime): void {
    const entries = [
      ...runtime.sandboxes.map((s) => `${s.id}:${s.ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY'}`),
      ...runtime.containers.map((c) => `${c.id}:${criState(c.state)}`),
    ];
    if (entries.length === 0) this.seen.delete(runtime.uid);
    else this.seen.set(runtime.uid, fingerprint(entries));
  }

  start(signal: AbortSignal): void {
    const tick = async () => {
      if (signal.aborted) return;
      try {
        await this.relist();
      } catch (error) {
        this.log(`kubelet: runtime relist failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!signal.aborted) this.timer = setTimeout(tick, RELIST_INTERVAL_MS);
    };
    this.timer = setTimeout(tick, RELIST_INTERVAL_MS);
    signal.addEventListener('abort', () => clearTimeout(this.timer), { once: true });
  }

  /** Whether the runtime was relisted within the last 3 minutes. */
  healthy(): boolean {
    return Date.now() - this.lastRelist < RELIST_THRESHOLD_MS;
  }

  /** What the last relist counted; undefined before the first. */
  runtimeCounts(): RuntimeCounts | undefined {
    return this.lastCounts;
  }

  async relist(): Promise<RelistResult> {
    const started = performance.now();
    const [sandboxes, containers] = await Promise.all([this.cri.listPodSandbox(), this.cri.listContainers()]);
    this.lastRelist = Date.now();
    const byUid = new Map<string, string[]>();
    const ids = new Set<string>();
    const add = (uid: string | undefined, id: string, state: string) => {
      ids.add(id);
      if (!uid) return;
      const list = byUid.get(uid) ?? [];
      byUid.set(uid, list);
      list.push(`${id}:${state}`);
    };
    for (const sandbox of sandboxes) add(sandbox.labels[POD_UID_LABEL], sandbox.id, sandbox.state);
    for (const container of containers) add(container.labels[POD_UID_LABEL], container.id, container.state);
    for (const [uid, entries] of byUid) {
      const print = fingerprint(entries);
      if (this.seen.get(uid) === print) continue;
      this.seen.set(uid, print);
      this.onChange(uid);
    }
    for (const uid of [...this.seen.keys()]) {
      if (byUid.has(uid)) continue;
      this.seen.delete(uid);
      this.onChange(uid);
    }
    const containersByState = new Map<string, number>();
    for (const container of containers) {
      const state = runtimeContainerState(container.state);
      containersByState.set(state, (containersByState.get(state) ?? 0) + 1);
    }
    const readyPods = new Set(
      sandboxes.filter((s) => s.state === 'SANDBOX_READY').map((s) => s.labels[POD_UID_LABEL] ?? s.id),
    );
    this.lastCounts = { runningPods: readyPods.size, containersByState };
    const result = {
      uids: new Set(byUid.keys()),
      ids,
      counts: this.lastCounts,
      seconds: (performance.now() - started) / 1000,
    };
    this.onRelist(result);
    return result;
  }
}

function criState(state: string): string {
  switch (state) {
    case 'created':
      return 'CONTAINER_CREATED';
    case 'running':
      return 'CONTAINER_RUNNING';
    case 'exited':
      return 'CONTAINER_EXITED';
    default:
      return 'CONTAINER_UNKNOWN';
  }
}
