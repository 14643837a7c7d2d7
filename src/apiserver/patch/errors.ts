/**
 * Status reasons a patch can fail with. The empty string is Kubernetes' StatusReasonUnknown: the
 * apiserver sends it (omitted from the JSON) with code 500 for errors it did not classify.
 */
export type PatchErrorReason =
  | 'BadRequest'
  | 'Invalid'
  | 'Conflict'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | '';

/** The Status object kube-apiserver answers a failed patch with. */
export interface PatchFailureStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason?: Exclude<PatchErrorReason, ''>;
  details?: Record<string, never>;
  code: number;
}

/**
 * A patch that cannot be applied. `code`, `reason` and `message` are what kube-apiserver puts in
 * its Status; `detail` keeps the underlying text where Kubernetes hides it behind a generic message.
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';

  constructor(
    readonly code: number,
    readonly reason: PatchErrorReason,
    message: string,
    readonly detail?: string,
    /** Kubernetes sends `details: {}` for errors built by NewGenericServerResponse. */
    readonly emptyDetails = false,
  ) {
    super(message);
  }

  toStatus(): PatchFailureStatus {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      ...(this.reason === '' ? {} : { reason: this.reason }),
      ...(this.emptyDetails ? { details: {} } : {}),
      code: this.code,
    };
  }
}

export function badRequest(message: string): PatchError {
  return new PatchError(400, 'BadRequest', message);
}

/**
 * 422 as kube-apiserver builds it with NewGenericServerResponse: the client sees only a generic
 * message, whatever the cause (kubectl prints `The "" is invalid`).
 */
export function unprocessable(detail: string): PatchError {
  return new PatchError(
    422,
    'Invalid',
    'the server rejected our request due to an error in our request',
    detail,
    true,
  );
}

/** An error kube-apiserver passes through unclassified: 500 with the bare error text. */
export function internalError(message: string): PatchError {
  return new PatchError(500, '', message);
}

export function unsupportedMediaType(accepted: readonly string[]): PatchError {
  return new PatchError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function requestEntityTooLarge(message: string): PatchError {
  return new PatchError(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}
