// exec probes: the command runs in the container through CRI ExecSync; exit 0 succeeds, and
// stdout then stderr are the output. A command still running at the timeout fails.
import type { ProbeOutcome } from './outcome.js';

export type ExecSync = (
  containerId: string,
  cmd: string[],
  timeoutSeconds: number,
) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

class ExecTimeout extends Error {}

/** Runs the command; a rejected ExecSync (not a timeout) is rethrown: the probe errored. */
export async function runExecProbe(
  execSync: ExecSync,
  containerId: string,
  command: string[],
  timeoutSeconds: number,
): Promise<ProbeOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // The runtime enforces the timeout too; this bound holds if it does not answer in time.
    timer = setTimeout(() => reject(new ExecTimeout()), timeoutSeconds * 1000 + 1000);
  });
  try {
    const result = await Promise.race([execSync(containerId, command, timeoutSeconds), timeout]);
    const output = result.stdout + result.stderr;
    return { result: result.exitCode === 0 ? 'success' : 'failure', output };
  } catch (error) {
    if (error instanceof ExecTimeout || isTimeout(error)) {
      return { result: 'failure', output: `command "${command.join(' ')}" timed out` };
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** ExecSync reports its own timeout as a DEADLINE_EXCEEDED gRPC status or a TimeoutError. */
function isTimeout(error: unknown): boolean {
  const candidate = error as { code?: unknown; name?: unknown } | undefined;
  return candidate?.code === 4 || candidate?.name === 'TimeoutError';
}
