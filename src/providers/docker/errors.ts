/**
 * Docker cannot be reached. Its message is one line: what failed, then what to do about it,
 * so the CLI prints it as it is and exits non-zero.
 */
export class DockerUnavailableError extends Error {
  override readonly name = 'DockerUnavailableError';
  constructor(
    readonly problem: string,
    readonly hint: string,
  ) {
    super(`${problem}; ${hint}`);
  }
}

/** A node or image operation failed in a way the user should see (one line, with details after it). */
export class DockerProviderError extends Error {
  override readonly name = 'DockerProviderError';
}

/** The HTTP status of an error from the Docker engine API, if it is one. */
export function engineStatusCode(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'statusCode' in error) {
    const code = (error as { statusCode: unknown }).statusCode;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/** The engine's own message ("No such container: x") rather than dockerode's wrapper text. */
export function engineMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'json' in error) {
    const json = (error as { json: unknown }).json;
    if (typeof json === 'object' && json !== null && 'message' in json) {
      const message = (json as { message: unknown }).message;
      if (typeof message === 'string') return message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

export function isNotFound(error: unknown): boolean {
  return engineStatusCode(error) === 404;
}

export function isConflict(error: unknown): boolean {
  return engineStatusCode(error) === 409;
}
