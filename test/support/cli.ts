import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `tkube` CLI (what a user runs) and returns its result without throwing. */
export async function tkube(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  if (!existsSync(new URL('../../dist/commands', import.meta.url))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  }
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false, timeout: 60_000 });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}
