// The kubelet's file source (staticPodPath): every regular, non-hidden file of the manifest
// directory is one pod. The directory is watched, and re-read every 20 s as upstream does, since
// a watch misses changes made beneath it (bind mounts, another mount namespace) or a directory
// that does not exist yet.
import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import {
  CONFIG_SEEN_ANNOTATION,
  CONFIG_SOURCE_ANNOTATION,
  FILE_SOURCE,
  staticPodFromManifest,
} from './manifest.js';

const RESYNC_MS = 20_000;
/** Editors write a file in several steps: read once they settle. */
const DEBOUNCE_MS = 100;

export interface StaticPodSourceOptions {
  readonly path: string;
  readonly nodeName: string;
  /** The complete set of static pods, after every read that changed it. */
  readonly onChange: (pods: readonly Pod[]) => void;
  readonly log?: (message: string) => void;
  readonly resyncMs?: number;
  readonly now?: () => Date;
}

export class StaticPodSource {
  private readonly options: StaticPodSourceOptions;
  private readonly log: (message: string) => void;
  /** When each pod (by uid) was first seen: `config.seen` stays what it was at the first read. */
  private readonly seen = new Map<string, string>();
  private current = '';
  private watcher?: FSWatcher;
  private debounce?: NodeJS.Timeout;
  private reading: Promise<void> = Promise.resolve();
  /** Problems reported at the last read: the same ones are not logged again every 20 s. */
  private reported = new Set<string>();
  private reporting = new Set<string>();

  constructor(options: StaticPodSourceOptions) {
    this.options = options;
    this.log = options.log ?? ((message) => console.error(message));
  }

  /** Reads the directory now; resolves once `onChange` has seen the result. */
  load(): Promise<void> {
    this.reading = this.reading.then(() => this.read());
    return this.reading;
  }

  /** Keeps the pods current until the signal aborts. */
  start(signal: AbortSignal): void {
    const timer = setInterval(() => {
      this.ensureWatch();
      void this.load();
    }, this.options.resyncMs ?? RESYNC_MS);
    this.ensureWatch();
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        clearTimeout(this.debounce);
        this.watcher?.close();
        this.watcher = undefined;
      },
      { once: true },
    );
  }

  private ensureWatch(): void {
    if (this.watcher) return;
    try {
      this.watcher = watch(this.options.path, () => {
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.load(), DEBOUNCE_MS);
      });
      // The directory itself went away: the next resync watches it again once it is back.
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      this.watcher = undefined;
    }
  }

  private async read(): Promise<void> {
    this.reporting = new Set();
    const pods = await this.readPods();
    this.reported = this.reporting;
    if (pods === undefined) return;
    const text = JSON.stringify(pods.map((pod) => pod.metadata?.uid));
    const uids = new Set(pods.map((pod) => pod.metadata?.uid ?? ''));
    for (const uid of this.seen.keys()) if (!uids.has(uid)) this.seen.delete(uid);
    if (text === this.current) return;
    this.current = text;
    this.options.onChange(pods);
  }

  /** The pods of the directory, or undefined when it cannot be read (the last set stays). */
  private async readPods(): Promise<Pod[] | undefined> {
    const { path, nodeName } = this.options;
    let names: string[];
    try {
      names = (await readdir(path)).filter((name) => !name.startsWith('.')).sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // No directory is no static pods, as for upstream's kubelet.
      if (code === 'ENOENT') return [];
      this.logOnce(`kubelet: unable to read config path ${JSON.stringify(path)}: ${String(error)}`);
      return undefined;
    }
    const pods: Pod[] = [];
    const fullNames = new Set<string>();
    for (const name of names) {
      const file = join(path, name);
      try {
        const info = await stat(file);
        if (info.isDirectory()) continue;
        if (!info.isFile()) continue;
        const pod = staticPodFromManifest(await readFile(file, 'utf8'), file, nodeName);
        const fullName = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
        if (fullNames.has(fullName)) {
          this.logOnce(`kubelet: pod ${fullName} in ${file} is defined by an earlier manifest too; skipped`);
          continue;
        }
        fullNames.add(fullName);
        pods.push(this.annotated(pod));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        this.logOnce(
          `kubelet: could not process manifest file ${file}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    return pods;
  }

  private annotated(pod: Pod): Pod {
    const uid = pod.metadata?.uid ?? '';
    let seen = this.seen.get(uid);
    if (seen === undefined) {
      seen = rfc3339Nano(this.options.now?.() ?? new Date());
      this.seen.set(uid, seen);
    }
    const metadata = pod.metadata ?? {};
    return {
      ...pod,
      metadata: {
        ...metadata,
        annotations: {
          ...metadata.annotations,
          [CONFIG_SEEN_ANNOTATION]: seen,
          [CONFIG_SOURCE_ANNOTATION]: FILE_SOURCE,
        },
      },
    };
  }

  private logOnce(message: string): void {
    this.reporting.add(message);
    if (!this.reported.has(message)) this.log(message);
  }
}

/** Go's RFC3339Nano: the fraction without trailing zeros (none at all for a whole second). */
function rfc3339Nano(time: Date): string {
  return time.toISOString().replace(/\.?0+Z$/, 'Z');
}
