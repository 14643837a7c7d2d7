// The node's local-path cleaner: a deleted volume of this node loses its directory; other nodes'
// volumes, other provisioners' and odd names are left alone; the start-up sweep removes only old
// directories of volumes that no longer exist.
import { mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalPathCleaner } from '../../../../src/agent/local-path/cleaner.js';
import type { PersistentVolume } from '../../../../src/api/types/core-v1.generated.js';
import { tempDir } from '../../../support/temp.js';

function volume(name: string, node: string, provisioner = 'tkube.dev/local-path'): PersistentVolume {
  return {
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': provisioner } },
    spec: {
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
          ],
        },
      },
    },
  };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function volumeDir(root: string, name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'data'), 'x');
  return dir;
}

describe('the local-path cleaner', () => {
  it("removes a deleted volume's directory only when the volume was this node's and local-path's", async () => {
    const root = tempDir();
    const cleaner = new LocalPathCleaner({ nodeName: 'node-a', root, log: () => {} });
    const mine = await volumeDir(root, 'pvc-1111');
    const theirs = await volumeDir(root, 'pvc-2222');
    const foreign = await volumeDir(root, 'pvc-3333');
    expect(await cleaner.volumeDeleted(volume('pvc-2222', 'node-b'))).toBe(false);
    expect(await cleaner.volumeDeleted(volume('pvc-3333', 'node-a', 'example.com/disk'))).toBe(false);
    expect(await cleaner.volumeDeleted(volume('../etc', 'node-a'))).toBe(false);
    expect(await cleaner.volumeDeleted(volume('pvc-1111', 'node-a'))).toBe(true);
    expect(await exists(mine)).toBe(false);
    expect(await exists(theirs)).toBe(true);
    expect(await exists(foreign)).toBe(true);
  });

  it('sweeps old directories of volumes that are gone, and nothing else', async () => {
    const root = tempDir();
    const now = Date.now();
    const cleaner = new LocalPathCleaner({ nodeName: 'node-a', root, now: () => now, log: () => {} });
    const gone = await volumeDir(root, 'pvc-aaaa');
    const live = await volumeDir(root, 'pvc-bbbb');
    const young = await volumeDir(root, 'pvc-cccc');
    const other = await volumeDir(root, 'keep-me');
    const old = new Date(now - 5 * 60_000);
    for (const dir of [gone, live, other]) await utimes(dir, old, old);
    expect(await cleaner.sweep(new Set(['pvc-bbbb']))).toEqual(['pvc-aaaa']);
    expect(await exists(gone)).toBe(false);
    for (const dir of [live, young, other]) expect(await exists(dir)).toBe(true);
  });
});
