import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withBuildLock } from '../../../src/providers/docker/image/build-lock.js';

describe('build lock', () => {
  it('runs holders of the same name one after the other', async () => {
    const name = `unit-${process.pid}-${Date.now()}`;
    const events: string[] = [];
    const hold = (id: string) =>
      withBuildLock(name, async () => {
        events.push(`${id} in`);
        await sleep(50);
        events.push(`${id} out`);
        return id;
      });
    expect(await Promise.all([hold('a'), hold('b')])).toEqual(['a', 'b']);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out']);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const name = `unit-stale-${process.pid}-${Date.now()}`;
    // PID 2^22 + 1 is above Linux's pid_max limit: no such process.
    await writeFile(join(tmpdir(), `tkube-build-${name}.lock`), String(4_194_305));
    expect(await withBuildLock(name, async () => 'ran', 2_000)).toBe('ran');
  });
});
