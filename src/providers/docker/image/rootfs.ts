// A root filesystem described in memory and written out as a tar stream: host files are read
// only when the stream is consumed. Copies from the host keep the host's layout, symlinks
// included (/lib -> usr/lib on merged-/usr systems), so dynamic linkers and tools find their
// files where they were built to look.
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { type TarEntry, tarStream } from '../tar.js';

const MAX_SYMLINK_DEPTH = 40;

export class Rootfs {
  readonly #entries = new Map<string, TarEntry>();

  has(path: string): boolean {
    return this.#entries.has(this.canonicalPath(path));
  }

  addDirectory(path: string, mode = 0o755): string {
    const target = this.#place(path);
    if (!this.#entries.has(target)) this.#entries.set(target, { type: 'directory', path: target, mode });
    return target;
  }

  addFile(path: string, content: string | Uint8Array, mode = 0o644): string {
    const target = this.#place(path);
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    this.#entries.set(target, { type: 'file', path: target, mode, content: bytes });
    return target;
  }

  addSymlink(path: string, linkTarget: string): string {
    const target = this.#place(path);
    this.#entries.set(target, { type: 'symlink', path: target, target: linkTarget });
    return target;
  }

  /**
   * Copies a host file (or directory entry) to the same path, recreating every symlink met on
   * the way. Returns the path where its content landed.
   */
  async copyFromHost(path: string, depth = 0): Promise<string> {
    if (depth > MAX_SYMLINK_DEPTH) throw new Error(`too many levels of symbolic links: ${path}`);
    const parts = posix.resolve(path).split('/').filter(Boolean);
    let current = '/';
    for (const [index, part] of parts.entries()) {
      const next = posix.join(current, part);
      const stat = await lstat(next);
      if (stat.isSymbolicLink()) {
        const linkTarget = await readlink(next);
        if (!this.#entries.has(next)) this.addSymlink(next, linkTarget);
        const rest = parts.slice(index + 1);
        return this.copyFromHost(posix.join(posix.resolve(current, linkTarget), ...rest), depth + 1);
      }
      const last = index === parts.length - 1;
      if (stat.isDirectory()) {
        this.addDirectory(next, stat.mode & 0o7777);
      } else if (last && stat.isFile()) {
        this.#entries.set(next, {
          type: 'hostFile',
          path: next,
          mode: stat.mode & 0o7777,
          source: next,
          size: stat.size,
        });
      } else {
        throw new Error(`cannot copy ${next} into the node image: not a regular file, directory or symlink`);
      }
      current = next;
    }
    return current;
  }

  /** Copies one host file (symlinks followed) to another path in the rootfs. */
  async copyFileFromHost(source: string, path: string, mode?: number): Promise<string> {
    const info = await stat(source);
    if (!info.isFile()) throw new Error(`cannot copy ${source} into the node image: not a regular file`);
    const target = this.#place(path);
    this.#entries.set(target, {
      type: 'hostFile',
      path: target,
      mode: mode ?? info.mode & 0o7777,
      source,
      size: info.size,
    });
    return target;
  }

  /** Copies a host directory and everything below it. */
  async copyTreeFromHost(dir: string): Promise<void> {
    const landed = await this.copyFromHost(dir);
    for (const entry of await readdir(landed, { withFileTypes: true })) {
      const path = posix.join(landed, entry.name);
      if (entry.isDirectory()) await this.copyTreeFromHost(path);
      else await this.copyFromHost(path);
    }
  }

  /** The path with every symlink inside the rootfs followed (as the node will see it). */
  canonicalPath(path: string, depth = 0): string {
    if (depth > MAX_SYMLINK_DEPTH) throw new Error(`too many levels of symbolic links: ${path}`);
    let current = '/';
    const parts = posix.resolve(path).split('/').filter(Boolean);
    for (const [index, part] of parts.entries()) {
      const next = posix.join(current, part);
      const entry = this.#entries.get(next);
      if (entry?.type === 'symlink') {
        const rest = parts.slice(index + 1);
        return this.canonicalPath(posix.join(posix.resolve(current, entry.target), ...rest), depth + 1);
      }
      current = next;
    }
    return current;
  }

  entries(): IterableIterator<TarEntry> {
    return this.#entries.values();
  }

  tar(): NodeJS.ReadableStream {
    return tarStream(this.#entries.values());
  }

  /** Where a new entry goes: its parent resolved through rootfs symlinks, created if missing. */
  #place(path: string): string {
    const absolute = posix.resolve(path);
    if (absolute === '/') throw new Error('the rootfs root cannot be an entry');
    const parent = this.canonicalPath(posix.dirname(absolute));
    let current = '/';
    for (const part of parent.split('/').filter(Boolean)) {
      current = posix.join(current, part);
      if (!this.#entries.has(current)) {
        this.#entries.set(current, { type: 'directory', path: current, mode: 0o755 });
      }
    }
    return posix.join(parent, posix.basename(absolute));
  }
}
