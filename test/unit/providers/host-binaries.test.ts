import { describe, expect, it } from 'vitest';
import {
  findExecutable,
  parseLddOutput,
  sharedLibraries,
} from '../../../src/providers/docker/image/host-binaries.js';

describe('ldd output', () => {
  it('collects libraries and the loader of several files, skipping the vDSO and static ones', () => {
    const output = [
      '/usr/sbin/runc:',
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibseccomp.so.2 => /lib/x86_64-linux-gnu/libseccomp.so.2 (0x00007f42)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f42)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f42)',
      '/usr/lib/cni/bridge:',
      '\tnot a dynamic executable',
      '/usr/sbin/ip:',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fd7)',
      '\tlibgone.so.1 => not found',
    ].join('\n');
    expect(parseLddOutput(output)).toEqual({
      libraries: [
        '/lib/x86_64-linux-gnu/libc.so.6',
        '/lib/x86_64-linux-gnu/libseccomp.so.2',
        '/lib64/ld-linux-x86-64.so.2',
      ],
      missing: ['libgone.so.1'],
    });
  });

  it('finds what this Node.js binary links against', async () => {
    const libraries = await sharedLibraries([process.execPath]);
    expect(libraries.some((library) => /\/libc\.so\.6$/.test(library))).toBe(true);
  });

  it('finds executables on PATH and in the system directories', async () => {
    expect(await findExecutable('sh', { PATH: '' })).toMatch(/^\/(usr\/)?bin\/sh$/);
    expect(await findExecutable('tkube-no-such-program')).toBeUndefined();
  });
});
