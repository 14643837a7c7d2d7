import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { criLogContent, lastLogLines } from '../../../src/agent/kubelet/runtime/termination-message.js';
import { tempDir } from '../../support/temp.js';

const T = '2026-11-28T00:00:00.000000000Z';

describe('the termination message from logs', () => {
  it('joins partial CRI lines and keeps output that ended without a newline', () => {
    const log = [
      `${T} stdout F first`,
      `${T} stdout P par`,
      `${T} stderr F tial`,
      `${T} stdout P DONE`,
      '',
    ].join('\n');
    expect(criLogContent(log)).toEqual(['first\n', 'partial\n', 'DONE']);
  });

  it('keeps the last 80 lines, 2048 bytes at most', async () => {
    const dir = tempDir();
    const path = join(dir, '0.log');
    const lines = Array.from({ length: 100 }, (_, i) => `${T} stdout F line ${i}`);
    await writeFile(path, `${lines.join('\n')}\n`);
    const message = await lastLogLines(path);
    expect(message.split('\n')[0]).toBe('line 20');
    expect(message.endsWith('line 99\n')).toBe(true);

    const long = Array.from({ length: 10 }, () => `${T} stdout F ${'x'.repeat(499)}`);
    await writeFile(path, `${long.join('\n')}\n`);
    expect(Buffer.byteLength(await lastLogLines(path))).toBe(2048);
  });
});
