// The last lines a node container printed (its entrypoint's messages), for error reports.
import type Dockerode from 'dockerode';
import { readAll } from './engine-stream.js';

export async function containerLogTail(docker: Dockerode, container: string, lines = 30): Promise<string> {
  const raw = await docker
    .getContainer(container)
    .logs({ stdout: true, stderr: true, follow: false, tail: lines });
  return demultiplex(Buffer.isBuffer(raw) ? raw : await readAll(raw as NodeJS.ReadableStream));
}

/** Strips the 8-byte frame headers docker puts before each chunk of a non-TTY stream. */
export function demultiplex(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const length = buffer.readUInt32BE(offset + 4);
    if ((stream !== 0 && stream !== 1 && stream !== 2) || buffer[offset + 1] !== 0) {
      return buffer.toString('utf8');
    }
    parts.push(buffer.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  return Buffer.concat(parts).toString('utf8');
}
