import { appendFile, open, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCriLogLine } from '../../../src/agent/kubelet/server/cri-log.js';
import {
  findTailStart,
  type LogReadOptions,
  readContainerLog,
} from '../../../src/agent/kubelet/server/log-reader.js';
import { tempDir } from '../../support/temp.js';

const LOG = [
  '2024-05-01T10:00:00.000000001Z stdout F first line',
  '2024-05-01T10:00:01.5Z stderr F an error',
  '2024-05-01T10:00:02.25Z stdout P part one, ',
  '2024-05-01T10:00:02.26Z stdout F part two',
  '2024-05-01T10:00:03Z stdout F last line',
  '',
].join('\n');

const defaults: LogReadOptions = { since: 0, tail: -1, bytes: -1, timestamps: false, follow: false };

async function read(content: string, options: Partial<LogReadOptions> = {}) {
  const path = join(tempDir(), '0.log');
  await writeFile(path, content);
  const chunks: string[] = [];
  await readContainerLog(
    path,
    { ...defaults, ...options },
    { write: async (chunk) => void chunks.push(chunk.toString()) },
    async () => false,
  );
  return chunks.join('');
}

describe('CRI log lines', () => {
  it('parse timestamp, stream, tag and content', () => {
    const full = parseCriLogLine(Buffer.from('2016-10-06T00:17:09.669794202Z stdout F log content 1\n'))!;
    expect(full).toMatchObject({ timestamp: '2016-10-06T00:17:09.669794202Z', stream: 'stdout' });
    expect(full.log.toString()).toBe('log content 1\n');
    expect(full.time).toBe(Date.UTC(2016, 9, 6, 0, 17, 9, 669));
    const partial = parseCriLogLine(
      Buffer.from('2016-10-06T00:17:09.669794203Z stderr P:x log content 2\n'),
    )!;
    expect(partial.stream).toBe('stderr');
    expect(partial.log.toString()).toBe('log content 2');
    expect(parseCriLogLine(Buffer.from('not a log line\n'))).toBeUndefined();
    expect(parseCriLogLine(Buffer.from('2016-10-06T00:17:09Z stdin F x\n'))).toBeUndefined();
  });
});

describe('reading a container log', () => {
  it('joins partial records and keeps both streams', async () => {
    expect(await read(LOG)).toBe('first line\nan error\npart one, part two\nlast line\n');
  });

  it('tails the last lines of the file', async () => {
    expect(await read(LOG, { tail: 1 })).toBe('last line\n');
    expect(await read(LOG, { tail: 2 })).toBe('part two\nlast line\n');
    expect(await read(LOG, { tail: 0 })).toBe('');
    expect(await read(LOG, { tail: 100 })).toBe('first line\nan error\npart one, part two\nlast line\n');
  });

  it('prefixes timestamps at line starts only', async () => {
    expect(await read(LOG, { timestamps: true, tail: 3 })).toBe(
      '2024-05-01T10:00:02.25Z part one, part two\n2024-05-01T10:00:03Z last line\n',
    );
  });

  it('skips records older than since, and stops at the byte limit', async () => {
    expect(await read(LOG, { since: Date.UTC(2024, 4, 1, 10, 0, 2) })).toBe(
      'part one, part two\nlast line\n',
    );
    expect(await read(LOG, { bytes: 15 })).toBe('first line\nan e');
  });

  it('writes an unterminated last line as it is', async () => {
    expect(await read(`${LOG}2024-05-01T10:00:04Z stdout F no newline`)).toMatch(/last line\nno newline$/);
  });

  it('finds where the last n lines start, as the kubelet counts them', async () => {
    const line = 'a'.repeat(1024);
    const path = join(tempDir(), 'tail');
    await writeFile(path, `${line}\n${line}\n${line}\n${line}\n${line.slice(512)}`);
    const file = await open(path, 'r');
    try {
      expect(await findTailStart(file, -1)).toBe(0);
      expect(await findTailStart(file, 0)).toBe(1025 * 4);
      expect(await findTailStart(file, 1)).toBe(1025 * 3);
      expect(await findTailStart(file, 9999)).toBe(0);
    } finally {
      await file.close();
    }
  });

  it('follows new lines while the container runs, across a rotation, and ends when it stops', async () => {
    const dir = tempDir();
    const path = join(dir, '0.log');
    await writeFile(path, '2024-05-01T10:00:00Z stdout F one\n');
    let running = true;
    const chunks: string[] = [];
    const done = readContainerLog(
      path,
      { ...defaults, follow: true, tail: 0 },
      { write: async (chunk) => void chunks.push(chunk.toString()) },
      async () => running,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await appendFile(path, '2024-05-01T10:00:01Z stdout F two\n');
    await expect.poll(() => chunks.join(''), { timeout: 3000 }).toBe('two\n');
    await rename(path, join(dir, '0.log.20240501-100002'));
    await writeFile(path, '2024-05-01T10:00:02Z stdout F three\n');
    await expect.poll(() => chunks.join(''), { timeout: 3000 }).toBe('two\nthree\n');
    running = false;
    await done;
  });

  it('reports a missing file in the kubelet words', async () => {
    const path = join(tempDir(), 'missing.log');
    await expect(
      readContainerLog(path, defaults, { write: async () => undefined }, async () => false),
    ).rejects.toThrow(
      `failed to try resolving symlinks in path "${path}": lstat ${path}: no such file or directory`,
    );
  });
});
