/**
 * A problem the user can fix (bad name, port taken, cluster missing...): the CLI prints its
 * message as one line, without a stack trace. The hint says what to do about it.
 */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
  constructor(
    readonly problem: string,
    readonly hint?: string,
  ) {
    super(hint === undefined ? problem : `${problem}; ${hint}`);
  }
}

/** The errno code of a Node.js system error, if it is one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/** An error's message without its stack, for one-line reports. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
