import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rootfs } from '../../../src/providers/docker/image/rootfs.js';
import type { TarEntry } from '../../../src/providers/docker/tar.js';
import { tempDir } from '../../support/temp.js';

function summary(rootfs: Rootfs): string[] {
  return [...rootfs.entries()].map((entry: TarEntry) =>
    entry.type === 'symlink' ? `${entry.path} -> ${entry.target}` : `${entry.type} ${entry.path}`,
  );
}

describe('rootfs assembly', () => {
  it('copies host files with every symlink on their way, as on the host', async () => {
    const host = tempDir();
    // host/lib -> usr/lib; usr/lib/libx.so.1 -> libx.so.1.2 (merged /usr and soname links)
    await mkdir(join(host, 'usr/lib'), { recursive: true });
    await writeFile(join(host, 'usr/lib/libx.so.1.2'), 'lib');
    await symlink('libx.so.1.2', join(host, 'usr/lib/libx.so.1'));
    await symlink('usr/lib', join(host, 'lib'));

    const rootfs = new Rootfs();
    const landed = await rootfs.copyFromHost(join(host, 'lib/libx.so.1'));
    expect(landed).toBe(join(host, 'usr/lib/libx.so.1.2'));
    const entries = summary(rootfs);
    expect(entries).toContain(`${join(host, 'lib')} -> usr/lib`);
    expect(entries).toContain(`${join(host, 'usr/lib/libx.so.1')} -> libx.so.1.2`);
    expect(entries).toContain(`hostFile ${join(host, 'usr/lib/libx.so.1.2')}`);
    expect(rootfs.canonicalPath(join(host, 'lib/libx.so.1'))).toBe(join(host, 'usr/lib/libx.so.1.2'));
  });

  it('places new entries through rootfs symlinks and creates missing parents first', () => {
    const rootfs = new Rootfs();
    rootfs.addSymlink('/bin', 'usr/bin');
    rootfs.addFile('/bin/tool', 'x', 0o755);
    rootfs.addSymlink('/var/run', '../run');
    rootfs.addFile('/var/run/marker', '');
    expect(summary(rootfs)).toEqual([
      '/bin -> usr/bin',
      'directory /usr',
      'directory /usr/bin',
      'file /usr/bin/tool',
      'directory /var',
      '/var/run -> ../run',
      'directory /run',
      'file /run/marker',
    ]);
    expect(rootfs.has('/bin/tool')).toBe(true);
    expect(rootfs.has('/bin/other')).toBe(false);
  });

  it('copies directory trees', async () => {
    const host = tempDir();
    await mkdir(join(host, 'x/sub'), { recursive: true });
    await writeFile(join(host, 'x/a.so'), 'a');
    await writeFile(join(host, 'x/sub/b'), 'b');
    await symlink('a.so', join(host, 'x/alias.so'));
    const rootfs = new Rootfs();
    await rootfs.copyTreeFromHost(join(host, 'x'));
    const entries = summary(rootfs);
    expect(entries).toEqual(
      expect.arrayContaining([
        `hostFile ${join(host, 'x/a.so')}`,
        `hostFile ${join(host, 'x/sub/b')}`,
        `${join(host, 'x/alias.so')} -> a.so`,
      ]),
    );
  });
});
