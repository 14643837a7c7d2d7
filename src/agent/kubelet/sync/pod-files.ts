// The files the kubelet keeps per pod on the node: /var/lib/kubelet/pods/<uid>/etc-hosts (the
// containers' /etc/hosts), containers/<name>/<id> (termination message files) and the log
// directory /var/log/pods/<ns>_<name>_<uid>/<container>/. Volumes live next to them and are the
// volume manager's.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const KUBELET_ROOT = '/var/lib/kubelet';

export class PodFiles {
  constructor(
    readonly root = KUBELET_ROOT,
    private readonly nodeHostsPath = '/etc/hosts',
  ) {}

  podDir(uid: string): string {
    return join(this.root, 'pods', uid);
  }

  etcHostsPath(uid: string): string {
    return join(this.podDir(uid), 'etc-hosts');
  }

  async nodeHosts(): Promise<string> {
    return readFile(this.nodeHostsPath, 'utf8').catch(() => '');
  }

  /** Writes the pod's hosts file when its content changed (a new sandbox has a new address). */
  async writeEtcHosts(uid: string, content: string): Promise<string> {
    const path = this.etcHostsPath(uid);
    const current = await readFile(path, 'utf8').catch(() => undefined);
    if (current !== content) {
      await mkdir(this.podDir(uid), { recursive: true });
      await writeFile(path, content, { mode: 0o644 });
    }
    return path;
  }

  /** A fresh, empty file for one run of a container's termination message. */
  async terminationMessageFile(uid: string, containerName: string): Promise<string> {
    const dir = join(this.podDir(uid), 'containers', containerName);
    await mkdir(dir, { recursive: true });
    const path = join(dir, randomBytes(4).toString('hex'));
    await writeFile(path, '', { mode: 0o666 });
    // writeFile's mode passes through the umask: a container running as any user must be able to
    // write its message, so the mode is set exactly, as upstream's kubelet chmods it to 0666.
    await chmod(path, 0o666);
    return path;
  }

  /**
   * Removes what the kubelet itself wrote for the pod; the directory goes too once the volume
   * manager has emptied its part (never recursively: volumes may still be mounted there).
   */
  async removePodFiles(uid: string): Promise<void> {
    const dir = this.podDir(uid);
    await rm(join(dir, 'etc-hosts'), { force: true });
    await rm(join(dir, 'containers'), { recursive: true, force: true });
    for (const sub of ['plugins', 'volumes']) await rmdir(join(dir, sub)).catch(() => undefined);
    await rmdir(dir).catch(() => undefined);
  }
}

/** The next restart count from a container's log directory (`<n>.log` files), for runtimes that lost it. */
export async function restartCountFromLogDir(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let next = 0;
  for (const name of names) {
    const match = /^(\d+)\.log$/.exec(name);
    if (match) next = Math.max(next, Number(match[1]) + 1);
  }
  return next;
}

export async function ensureDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o755 });
}
