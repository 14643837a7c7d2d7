import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tarStream } from '../../../src/providers/docker/tar.js';
import { tempDir } from '../../support/temp.js';

describe('tar stream', () => {
  it('writes an archive GNU tar lists and extracts: directories, files, host files, symlinks, long paths', async () => {
    const dir = tempDir();
    const hostFile = join(dir, 'host.bin');
    const hostContent = Buffer.alloc(1500, 7);
    await writeFile(hostFile, hostContent);
    const longDir = `opt/${'d'.repeat(90)}/${'e'.repeat(40)}`;
    const archive = join(dir, 'out.tar');
    await pipeline(
      tarStream([
        { type: 'directory', path: 'etc', mode: 0o755 },
        { type: 'file', path: 'etc/hello', mode: 0o640, content: Buffer.from('hello\n') },
        { type: 'hostFile', path: 'bin/tool', mode: 0o755, source: hostFile, size: hostContent.length },
        { type: 'symlink', path: 'bin/alias', target: 'tool' },
        { type: 'file', path: `${longDir}/file.txt`, mode: 0o644, content: Buffer.from('deep') },
      ]),
      createWriteStream(archive),
    );
    const listing = await execa('tar', ['-tvf', archive, '--numeric-owner']);
    expect(listing.stdout).toMatch(/^drwxr-xr-x 0\/0 .* etc\/$/m);
    expect(listing.stdout).toMatch(/^-rw-r----- 0\/0 +6 .* etc\/hello$/m);
    expect(listing.stdout).toMatch(/^lrwxrwxrwx 0\/0 .* bin\/alias -> tool$/m);

    const out = join(dir, 'x');
    await execa('mkdir', [out]);
    await execa('tar', ['-xf', archive, '-C', out]);
    expect((await execa('cat', [join(out, 'etc/hello')])).stdout).toBe('hello');
    expect((await execa('cmp', [hostFile, join(out, 'bin/alias')])).exitCode).toBe(0);
    expect((await execa('cat', [join(out, longDir, 'file.txt')])).stdout).toBe('deep');
  });

  it('fails when a host file changed size since it was listed', async () => {
    const dir = tempDir();
    const hostFile = join(dir, 'f');
    await writeFile(hostFile, 'abc');
    const chunks = tarStream([{ type: 'hostFile', path: 'f', mode: 0o644, source: hostFile, size: 10 }]);
    await expect(async () => {
      for await (const _ of chunks) {
        // drain
      }
    }).rejects.toThrow(/shrank while being archived/);
  });
});
