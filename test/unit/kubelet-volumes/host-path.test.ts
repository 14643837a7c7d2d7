import { mkdir, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHostPathType } from '../../../src/agent/kubelet/volumes/host-path.js';
import { tempDir } from '../../support/temp.js';

describe('hostPath type checks', () => {
  it('creates what the ...OrCreate types ask for', async () => {
    const dir = tempDir();
    await checkHostPathType(join(dir, 'new/dir'), 'DirectoryOrCreate');
    expect((await stat(join(dir, 'new/dir'))).isDirectory()).toBe(true);
    expect((await stat(join(dir, 'new/dir'))).mode & 0o777).toBe(0o755 & ~process.umask());
    await checkHostPathType(join(dir, 'file'), 'FileOrCreate');
    const created = await stat(join(dir, 'file'));
    expect(created.isFile() && created.size === 0).toBe(true);
  });

  it('accepts matching types and skips the check without a type', async () => {
    const dir = tempDir();
    await writeFile(join(dir, 'f'), 'x');
    await checkHostPathType(dir, 'Directory');
    await checkHostPathType(join(dir, 'f'), 'File');
    await checkHostPathType(join(dir, 'f'), 'FileOrCreate');
    await checkHostPathType(dir, 'DirectoryOrCreate');
    await checkHostPathType('/dev/null', 'CharDevice');
    await checkHostPathType(join(dir, 'absent'), '');
    await checkHostPathType(join(dir, 'absent'), undefined);
  });

  it('refuses mismatches with the kubelet messages', async () => {
    const dir = tempDir();
    const file = join(dir, 'f');
    await writeFile(file, 'x');
    await mkdir(join(dir, 'd'));
    await expect(checkHostPathType(file, 'Directory')).rejects.toThrow(
      `hostPath type check failed: ${file} is not a directory`,
    );
    await expect(checkHostPathType(file, 'DirectoryOrCreate')).rejects.toThrow(`${file} is not a directory`);
    await expect(checkHostPathType(join(dir, 'missing'), 'Directory')).rejects.toThrow('is not a directory');
    await expect(checkHostPathType(join(dir, 'd'), 'File')).rejects.toThrow(
      `hostPath type check failed: ${join(dir, 'd')} is not a file`,
    );
    await expect(checkHostPathType(file, 'Socket')).rejects.toThrow(
      `hostPath type check failed: ${file} is not a socket file`,
    );
    await expect(checkHostPathType(file, 'CharDevice')).rejects.toThrow(
      `hostPath type check failed: ${file} is not a character device`,
    );
    await expect(checkHostPathType('/dev/null', 'BlockDevice')).rejects.toThrow(
      'hostPath type check failed: /dev/null is not a block device',
    );
    await expect(checkHostPathType(file, 'Weird')).rejects.toThrow('Weird is an invalid volume type');
  });

  it('recognises a unix socket', async () => {
    const path = join(tempDir(), 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      await checkHostPathType(path, 'Socket');
      // A socket is "a file" to the kubelet: anything that is not a directory.
      await checkHostPathType(path, 'File');
    } finally {
      server.close();
    }
  });
});
