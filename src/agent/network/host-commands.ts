// The node's networking tools, run as child processes. One seam, so that the network code reads
// as what it does and tests can see the commands it would run.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export type RunCommand = (file: string, args: readonly string[]) => Promise<string>;

/** Runs a command and returns its stdout; a non-zero exit throws with its stderr. */
export const runCommand: RunCommand = async (file, args) => {
  try {
    const { stdout } = await execFileAsync(file, [...args], { encoding: 'utf8' });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`${file} ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`);
  }
};
