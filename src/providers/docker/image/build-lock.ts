// Two tkube processes (two `tkube up`, parallel test files) needing the same image build it
// once: the second waits for the first, then finds the image.
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 200;

export async function withBuildLock<T>(
  name: string,
  action: () => Promise<T>,
  timeoutMs = 15 * 60_000,
): Promise<T> {
  const path = join(tmpdir(), `tkube-build-${name.replace(/[^\w.-]/g, '_')}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
    if (!(await holderAlive(path))) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`another tkube process has been building ${name} for too long (${path})`);
    await sleep(POLL_MS);
  }
  try {
    return await action();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}

async function holderAlive(path: string): Promise<boolean> {
  let pid: number;
  let ageMs: number;
  try {
    pid = Number((await readFile(path, 'utf8')).trim());
    ageMs = Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return false;
  }
  // A lock file just created has no pid yet; one without a pid for long was left by a crash.
  if (!Number.isInteger(pid) || pid <= 0) return ageMs < 5_000;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}
