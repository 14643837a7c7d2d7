// The previous commit's build, for an A/B comparison in the same run (bench:up): the commit's
// tree is exported with `git archive` into a temporary directory (no worktree, nothing in .git
// changes), shares this checkout's node_modules and is built with its own `npm run build`.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface PreviousBuild {
  readonly commit: string;
  /** bin/run.js of the built tree. */
  readonly runJs: string;
  readonly remove: () => void;
}

export async function buildCommit(repo: string, ref: string): Promise<PreviousBuild> {
  const commit = (await execa('git', ['-C', repo, 'rev-parse', '--short', ref])).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), `tkube-bench-${commit}-`));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await execa('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, repo, commit, dir]);
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await execa('npm', ['run', 'build'], { cwd: dir });
  } catch (error) {
    remove();
    throw error;
  }
  return { commit, runJs: join(dir, 'bin', 'run.js'), remove };
}
