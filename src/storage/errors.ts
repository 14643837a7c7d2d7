/** Errors the store returns; the apiserver maps each to a Kubernetes `Status`. */
export class StoreError extends Error {
  override readonly name: string = 'StoreError';
}

export class KeyExistsError extends StoreError {
  override readonly name = 'KeyExistsError';
  constructor(readonly key: string) {
    super(`key already exists: ${key}`);
  }
}

export class KeyNotFoundError extends StoreError {
  override readonly name = 'KeyNotFoundError';
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
  }
}

export class ConflictError extends StoreError {
  override readonly name = 'ConflictError';
  constructor(
    readonly key: string,
    readonly expectedRevision: number,
    readonly actualRevision: number,
  ) {
    super(`revision mismatch for ${key}: expected ${expectedRevision}, found ${actualRevision}`);
  }
}

/** The requested revision is older than the compacted revision (Kubernetes: 410 Gone). */
export class CompactedError extends StoreError {
  override readonly name = 'CompactedError';
  constructor(
    readonly requestedRevision: number,
    readonly compactedRevision: number,
  ) {
    super(
      `required revision ${requestedRevision} has been compacted (compacted revision: ${compactedRevision})`,
    );
  }
}

/** The requested revision is newer than the current one. */
export class FutureRevisionError extends StoreError {
  override readonly name = 'FutureRevisionError';
  constructor(
    readonly requestedRevision: number,
    readonly currentRevision: number,
  ) {
    super(
      `required revision ${requestedRevision} is a future revision (current revision: ${currentRevision})`,
    );
  }
}

export class InvalidContinueError extends StoreError {
  override readonly name = 'InvalidContinueError';
}

/** The database file cannot be used: damaged, foreign, newer schema, or locked by another process. */
export class StoreOpenError extends StoreError {
  override readonly name = 'StoreOpenError';
}

export class StoreClosedError extends StoreError {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('the store is closed');
  }
}

/** A server datastore did not answer or dropped the connection: the request may succeed later. */
export class DatastoreUnavailableError extends StoreError {
  override readonly name = 'DatastoreUnavailableError';
  constructor(detail: string) {
    super(`the datastore is unavailable: ${detail}`);
  }
}

/** A driver's error as one line (the first of an AggregateError, such as a refused connection per address). */
export function driverMessage(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return driverMessage(error.errors[0]);
  return error instanceof Error ? error.message || error.constructor.name : String(error);
}
