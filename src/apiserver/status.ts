import {
  aggregateMessages,
  type FieldError,
  fieldErrorBody,
  fieldErrorMessage,
} from '../api/selectors/field-errors.js';

/**
 * Errors as kube-apiserver returns them: a `Status` object whose code, reason, details and
 * message text match Kubernetes, because clients and operators branch on them
 * (apimachinery/pkg/api/errors).
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

/** A failed request: thrown anywhere in the apiserver, written as a Status by the handler. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly code: number,
    readonly reason: StatusReason | '',
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

/** A group-qualified resource name as messages print it: `configmaps`, `deployments.apps`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualified(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
    {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    },
  );
}

export const OPTIMISTIC_LOCK_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422 with the field errors; `kind` is the object's Kind (e.g. `ConfigMap`), not the resource. */
export function invalid(
  group: string,
  kind: string,
  name: string,
  errors: readonly FieldError[],
): StatusError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  return new StatusError(
    422,
    'Invalid',
    `${qualifiedKind} "${name}" is invalid: ${aggregateMessages(errors.map(fieldErrorMessage))}`,
    {
      name,
      group: group || undefined,
      kind,
      causes: errors.map((error) => ({
        reason: error.type,
        message: fieldErrorBody(error),
        field: error.field,
      })),
    },
  );
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  const subject = name === '' ? qualified(gr) : `${qualified(gr)} "${name}"`;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    name: name || undefined,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

/** 410 for a watch or list whose resourceVersion was compacted. */
export function resourceExpired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return resourceExpired(`too old resource version: ${requested} (${oldest})`);
}

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind "${qualified(gr)}"`,
    {
      group: gr.group || undefined,
      kind: gr.resource,
    },
  );
}

export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function methodNotAllowedOnPath(): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
    {},
  );
}

/**
 * go-restful's 405 for a method no route of the path takes, as the apiserver's service error
 * handler wraps it (NewGenericServerResponse: the cause names the server's answer).
 */
export function methodNotAllowedByRoute(): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
    {
      causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }],
    },
  );
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    `the server was unable to respond with a content type that the client supports (accepted types: ${accepted.join(', ')})`,
  );
}

export function unsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    contentType ? { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] } : undefined,
  );
}

export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

/**
 * etcd's refusal of a write over its request limit, as kube-apiserver passes it on: not an API
 * status, so a 500 with the error's text and no reason.
 */
export function storageRequestTooLarge(): StatusError {
  return unknownError('etcdserver: request is too large');
}

/** An error that is not an API status, as ErrorToAPIStatus answers it: 500, no reason, its text. */
export function unknownError(message: string): StatusError {
  return new StatusError(500, '', message);
}

export function internalError(error: unknown): StatusError {
  const text = error instanceof Error ? error.message : String(error);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${text}`, {
    causes: [{ message: text }],
  });
}

export function tooLargeResourceVersion(requested: number | bigint, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

export function success(details?: StatusDetails): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) status.details = details;
  return status;
}
