// The node's half of tkube's local-path provisioner (Rancher local-path-provisioner's teardown
// helper pod, done by the agent): once a local-path PersistentVolume pinned to this node is
// deleted — the control plane deletes Released volumes under reclaim Delete — its directory and
// data go. At start-up, directories of volumes that no longer exist (deleted while the agent
// was down) go too, if older than a minute (younger ones may belong to a volume the cache has
// not seen yet). Reads PersistentVolumes as `tkube:pod-network`.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LABEL_HOSTNAME, LOCAL_PATH_PROVISIONER, LOCAL_PATH_ROOT } from '../../api/storage/local-path.js';
import { ANN_DYNAMICALLY_PROVISIONED } from '../../api/storage/persistent-volumes.js';
import type { PersistentVolume } from '../../api/types/core-v1.generated.js';
import { objectOf, type SharedInformer, waitForCacheSync } from '../../client/informers/index.js';

const SWEEP_MIN_AGE_MS = 60_000;
/** Names the provisioner gives its volumes: `pvc-<claim uid>`. */
const VOLUME_NAME = /^pvc-[0-9a-f-]+$/;

export interface LocalPathCleanerOptions {
  readonly nodeName: string;
  /** The directory holding the volumes (/var/lib/tkube/local-path). */
  readonly root?: string;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

export class LocalPathCleaner {
  private readonly root: string;
  private readonly now: () => number;
  private readonly log: (message: string) => void;

  constructor(private readonly options: LocalPathCleanerOptions) {
    this.root = options.root ?? LOCAL_PATH_ROOT;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((message) => console.error(`local-path: ${message}`));
  }

  /** Subscribes to the volumes; sweeps once the cache is synced. */
  watch(volumes: SharedInformer<PersistentVolume>, signal: AbortSignal): void {
    volumes.addEventHandler({
      onDelete: (volume) => {
        this.volumeDeleted(objectOf(volume)).catch((error: unknown) => this.log(String(error)));
      },
    });
    void waitForCacheSync(signal, [volumes]).then(async (synced) => {
      if (!synced) return;
      const live = new Set(volumes.lister.list().map((volume) => volume.metadata?.name ?? ''));
      await this.sweep(live).catch((error: unknown) => this.log(String(error)));
    });
  }

  /** Removes the directory of a deleted local-path volume of this node. */
  async volumeDeleted(volume: PersistentVolume): Promise<boolean> {
    if (volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== LOCAL_PATH_PROVISIONER) return false;
    if (!this.onThisNode(volume)) return false;
    const name = volume.metadata?.name ?? '';
    if (!VOLUME_NAME.test(name)) return false;
    await rm(join(this.root, name), { recursive: true, force: true });
    this.log(`removed the directory of deleted volume ${name}`);
    return true;
  }

  /** Removes directories of volumes not in `live`, older than a minute. */
  async sweep(live: ReadonlySet<string>): Promise<string[]> {
    const entries = await readdir(this.root).catch(() => [] as string[]);
    const removed: string[] = [];
    for (const name of entries) {
      if (!VOLUME_NAME.test(name) || live.has(name)) continue;
      const path = join(this.root, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isDirectory() || this.now() - info.mtimeMs < SWEEP_MIN_AGE_MS) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(name);
    }
    if (removed.length > 0) this.log(`removed directories of deleted volumes: ${removed.join(', ')}`);
    return removed;
  }

  private onThisNode(volume: PersistentVolume): boolean {
    return (volume.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []).some((term) =>
      (term.matchExpressions ?? []).some(
        (expression) =>
          expression.key === LABEL_HOSTNAME &&
          expression.operator === 'In' &&
          (expression.values ?? []).includes(this.options.nodeName),
      ),
    );
  }
}
