// A stopped container's termination message, as the kubelet reads it: the file the container
// wrote at its terminationMessagePath (the last 4 KiB), or with FallbackToLogsOnError and
// nothing written, the end of its log (80 lines, 2 KiB at most).
import { open } from 'node:fs/promises';
import type { ContainerStatus } from '../cri/types.js';

const MAX_MESSAGE_BYTES = 4 * 1024;
const MAX_LOG_LINES = 80;
const MAX_LOG_BYTES = 2 * 1024;
/** Enough of a log's end to hold 80 lines of ordinary length. */
const LOG_TAIL_BYTES = 64 * 1024;

/** The last `limit` bytes of a file. */
async function readTail(path: string, limit: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const length = Math.min(size, limit);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    return buffer;
  } finally {
    await file.close();
  }
}

/**
 * The content of CRI log lines (`<time> <stream> <P|F> <content>`): partial lines are joined,
 * each full line ends with a newline; output that stopped without a newline (`echo -n`) is
 * kept as it is, as the kubelet's log reader gives partial lines without waiting for the rest.
 */
export function criLogContent(text: string): string[] {
  const lines: string[] = [];
  let partial = '';
  for (const raw of text.split('\n')) {
    const match = /^\S+ (?:stdout|stderr) ([PF]) ?(.*)$/.exec(raw);
    if (!match) continue;
    partial += match[2];
    if (match[1] === 'F') {
      lines.push(`${partial}\n`);
      partial = '';
    }
  }
  if (partial !== '') lines.push(partial);
  return lines;
}

/** The end of a container's log for its termination message. */
export async function lastLogLines(logPath: string): Promise<string> {
  try {
    const tail = (await readTail(logPath, LOG_TAIL_BYTES)).toString('utf8');
    // The first line may be cut: drop it unless the whole file fitted.
    const text = tail.length >= LOG_TAIL_BYTES ? tail.slice(tail.indexOf('\n') + 1) : tail;
    const joined = criLogContent(text).slice(-MAX_LOG_LINES).join('');
    const bytes = Buffer.from(joined, 'utf8');
    return bytes.length > MAX_LOG_BYTES
      ? bytes.subarray(bytes.length - MAX_LOG_BYTES).toString('utf8')
      : joined;
  } catch (error) {
    return `Error on reading termination message from logs: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export async function terminationMessage(
  status: ContainerStatus,
  terminationMessagePath: string,
  fallbackToLogs: boolean,
): Promise<string> {
  const fromLogs = () =>
    fallbackToLogs && status.logPath ? lastLogLines(status.logPath) : Promise.resolve('');
  if (!terminationMessagePath) return fromLogs();
  const mount = status.mounts.find((candidate) => candidate.containerPath === terminationMessagePath);
  if (!mount) return fromLogs();
  let data: Buffer;
  try {
    data = await readTail(mount.hostPath, MAX_MESSAGE_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fromLogs();
    return `Error on reading termination log ${mount.hostPath}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return data.length === 0 ? fromLogs() : data.toString('utf8');
}
