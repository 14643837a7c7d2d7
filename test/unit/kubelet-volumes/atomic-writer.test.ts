import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DATA_DIR_NAME,
  type FileProjection,
  validatePayloadPath,
  writeAtomically,
} from '../../../src/agent/kubelet/volumes/atomic-writer.js';
import { tempDir } from '../../support/temp.js';

const file = (text: string, mode = 0o644): FileProjection => ({ data: Buffer.from(text), mode });

describe('the atomic writer', () => {
  it('writes files into a timestamped directory behind ..data and user-visible symlinks', async () => {
    const dir = tempDir();
    const written = await writeAtomically(
      dir,
      new Map([
        ['config.yaml', file('a: 1\n', 0o600)],
        ['nested/deep/key', file('value')],
      ]),
      { now: () => new Date(Date.UTC(2024, 4, 1, 12, 3, 4)) },
    );
    expect(written).toBe(true);
    const tsDir = await readlink(join(dir, DATA_DIR_NAME));
    expect(tsDir).toMatch(/^\.\.2024_05_01_12_03_04\.\d+$/);
    expect((await stat(join(dir, tsDir))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(dir, 'config.yaml'))).toBe('..data/config.yaml');
    expect(await readlink(join(dir, 'nested'))).toBe('..data/nested');
    expect(await readFile(join(dir, 'config.yaml'), 'utf8')).toBe('a: 1\n');
    expect(await readFile(join(dir, 'nested/deep/key'), 'utf8')).toBe('value');
    expect((await stat(join(dir, 'config.yaml'))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual(['..data', tsDir, 'config.yaml', 'nested'].sort());
  });

  it('leaves an unchanged payload alone', async () => {
    const dir = tempDir();
    const payload = new Map([['a', file('1')]]);
    await writeAtomically(dir, payload);
    const before = await readlink(join(dir, DATA_DIR_NAME));
    expect(await writeAtomically(dir, new Map([['a', file('1')]]))).toBe(false);
    expect(await readlink(join(dir, DATA_DIR_NAME))).toBe(before);
  });

  it('swaps in new contents, drops names no longer in the payload and removes the old directory', async () => {
    const dir = tempDir();
    await writeAtomically(
      dir,
      new Map([
        ['a', file('1')],
        ['b', file('2')],
      ]),
    );
    const first = await readlink(join(dir, DATA_DIR_NAME));
    expect(
      await writeAtomically(
        dir,
        new Map([
          ['a', file('changed')],
          ['c', file('3')],
        ]),
      ),
    ).toBe(true);
    const second = await readlink(join(dir, DATA_DIR_NAME));
    expect(second).not.toBe(first);
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('changed');
    expect(await readFile(join(dir, 'c'), 'utf8')).toBe('3');
    await expect(lstat(join(dir, 'b'))).rejects.toThrow();
    await expect(lstat(join(dir, first))).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['..data', second, 'a', 'c'].sort());
  });

  it('writes a removal-only change', async () => {
    const dir = tempDir();
    await writeAtomically(
      dir,
      new Map([
        ['a', file('1')],
        ['b', file('2')],
      ]),
    );
    expect(await writeAtomically(dir, new Map([['a', file('1')]]))).toBe(true);
    await expect(lstat(join(dir, 'b'))).rejects.toThrow();
  });

  it('refuses paths the kubelet refuses, with its messages', () => {
    expect(() => validatePayloadPath('')).toThrow('invalid path: must not be empty: ""');
    expect(() => validatePayloadPath('/etc/passwd')).toThrow(
      'invalid path: must be relative path: /etc/passwd',
    );
    expect(() => validatePayloadPath('a/../b')).toThrow("invalid path: must not contain '..': a/../b");
    expect(() => validatePayloadPath('..data')).toThrow("invalid path: must not start with '..': ..data");
    expect(() => validatePayloadPath('x'.repeat(256))).toThrow(
      'invalid path: filenames must be less than or equal to 255 characters',
    );
    expect(() => validatePayloadPath('..')).toThrow("invalid path: must not contain '..': ..");
    expect(() => validatePayloadPath('.hidden/file')).not.toThrow();
  });
});
