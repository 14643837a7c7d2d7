// Reads a container's CRI log file for `kubectl logs` the way the kubelet does: start at the
// last `tail` lines, skip records older than `since`, prefix timestamps at line starts, stop at
// `bytes`; when following, wait for more while the container runs and reopen the file when the
// runtime rotates it.
import { watch } from 'node:fs';
import { type FileHandle, open, realpath, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type LogRecord, parseCriLogLine } from './cri-log.js';

export interface LogReadOptions {
  /** Records before this time (ms since the epoch) are skipped; 0 keeps all. */
  readonly since: number;
  /** Lines from the end to start at; -1 for the whole file. */
  readonly tail: number;
  /** Bytes to write at most; -1 for no limit. */
  readonly bytes: number;
  readonly timestamps: boolean;
  readonly follow: boolean;
}

export interface LogSink {
  /** Writes a chunk; resolves once the receiver can take more. */
  write(chunk: Buffer, stream: 'stdout' | 'stderr'): Promise<void>;
}

const BLOCK_SIZE = 1024;
const READ_SIZE = 64 * 1024;
const NEWLINE = 0x0a;
/** How long a follower waits for a change before looking again anyway (the kubelet's 1 s). */
const FORCE_CHECK_MS = 1000;

/** The offset where the last `n` complete lines begin (0 for n < 0); an unterminated last line does not count. */
export async function findTailStart(file: FileHandle, n: number): Promise<number> {
  if (n < 0) return 0;
  const { size } = await file.stat();
  let left = 0;
  let count = 0;
  let block = Buffer.alloc(0);
  for (let right = size; right > 0 && count <= n; right -= BLOCK_SIZE) {
    left = Math.max(0, right - BLOCK_SIZE);
    block = Buffer.alloc(right - left);
    await file.read(block, 0, block.length, left);
    for (const byte of block) if (byte === NEWLINE) count++;
  }
  while (count > n) {
    const at = block.indexOf(NEWLINE) + 1;
    block = block.subarray(at);
    left += at;
    count--;
  }
  return left;
}

class LogWriter {
  private remain: number;
  constructor(
    private readonly sink: LogSink,
    private readonly options: LogReadOptions,
  ) {
    this.remain = options.bytes >= 0 ? options.bytes : Number.POSITIVE_INFINITY;
  }

  /** Writes a record; false once the byte limit is reached. */
  async write(record: LogRecord, atLineStart: boolean): Promise<boolean> {
    if (record.time < this.options.since) return true;
    let line = record.log;
    if (this.options.timestamps && atLineStart) {
      line = Buffer.concat([Buffer.from(`${record.timestamp} `, 'latin1'), line]);
    }
    if (line.length > this.remain) line = line.subarray(0, this.remain);
    await this.sink.write(line, record.stream);
    this.remain -= line.length;
    return this.remain > 0;
  }
}

/** Waits until the log directory changes or the force-check period passes. */
function waitForChange(dir: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    let watcher: ReturnType<typeof watch> | undefined;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, FORCE_CHECK_MS);
    try {
      watcher = watch(dir, done);
      watcher.on('error', done);
    } catch {
      // Without a watch the periodic check still finds new lines.
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Streams the log at `path` into `sink`. `isRunning` says whether to keep following; errors
 * carry the kubelet's texts.
 */
export async function readContainerLog(
  path: string,
  options: LogReadOptions,
  sink: LogSink,
  isRunning: () => Promise<boolean>,
  signal?: AbortSignal,
): Promise<void> {
  let resolved: string;
  try {
    resolved = await realpath(path);
  } catch {
    throw new Error(
      `failed to try resolving symlinks in path "${path}": lstat ${path}: no such file or directory`,
    );
  }
  let file: FileHandle;
  try {
    file = await open(resolved, 'r');
  } catch (error) {
    throw new Error(`failed to open log file "${resolved}": ${(error as Error).message}`);
  }
  try {
    let position = await findTailStart(file, options.tail);
    const limited = options.tail >= 0 && !options.follow;
    let remainingLines = options.tail;
    const writer = new LogWriter(sink, options);
    let pending = Buffer.alloc(0);
    let atLineStart = true;
    let found = true;
    let stop = false;
    const chunk = Buffer.alloc(READ_SIZE);
    for (;;) {
      if (signal?.aborted || (limited && remainingLines === 0)) return;
      const newline = pending.indexOf(NEWLINE);
      let line: Buffer | undefined;
      if (newline >= 0) {
        line = pending.subarray(0, newline + 1);
        pending = pending.subarray(newline + 1);
      } else {
        const { bytesRead } = await file.read(chunk, 0, READ_SIZE, position);
        if (bytesRead > 0) {
          position += bytesRead;
          pending = Buffer.concat([pending, chunk.subarray(0, bytesRead)]);
          continue;
        }
        // End of file.
        if (options.follow) {
          if (!found) return;
          // The runtime may have rotated the file: continue in the new one.
          const reopened = await reopenIfReplaced(file, resolved);
          if (reopened) {
            await file.close();
            file = reopened;
            position = 0;
            pending = Buffer.alloc(0);
            continue;
          }
          found = await isRunning();
          if (found) await waitForChange(dirname(resolved), signal);
          continue;
        }
        if (pending.length === 0) return;
        // An unterminated last line is written as it is, then reading ends.
        line = pending;
        pending = Buffer.alloc(0);
        stop = true;
      }
      const record = parseCriLogLine(line);
      if (record) {
        if (!(await writer.write(record, atLineStart))) return;
        atLineStart = record.log.length === 0 || record.log[record.log.length - 1] === NEWLINE;
        if (limited) remainingLines--;
      }
      if (stop) return;
    }
  } finally {
    await file.close().catch(() => undefined);
  }
}

/** A new file at the same path (log rotation), opened; undefined while the open one is current. */
async function reopenIfReplaced(file: FileHandle, path: string): Promise<FileHandle | undefined> {
  const [current, atPath] = await Promise.all([file.stat(), stat(path).catch(() => undefined)]);
  if (!atPath || atPath.ino === current.ino) return undefined;
  return open(path, 'r').catch(() => undefined);
}
