// A failed API call as a thrown error carrying the server's Status, and the predicates callers
// branch on (apimachinery/pkg/api/errors: IsNotFound, IsConflict ...).
import type { Status, StatusDetails } from '../../api/types/meta-v1.generated.js';

export class ApiError extends Error {
  readonly code: number;
  /** `NotFound`, `Conflict` ...; `''` when the server gave none. */
  readonly reason: string;
  readonly details?: StatusDetails;

  constructor(readonly status: Status) {
    super(status.message || `the server responded with the status code ${status.code ?? 0}`);
    this.name = 'ApiError';
    this.code = status.code ?? 0;
    this.reason = status.reason ?? '';
    this.details = status.details;
  }
}

/** The reasons Kubernetes defines: an unknown reason defers to the HTTP code, as client-go does. */
const KNOWN_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

function matches(error: unknown, reason: string, code?: number): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.reason === reason) return true;
  return code !== undefined && error.code === code && !KNOWN_REASONS.has(error.reason);
}

export const isNotFound = (error: unknown): boolean => matches(error, 'NotFound', 404);
export const isAlreadyExists = (error: unknown): boolean => matches(error, 'AlreadyExists');
export const isConflict = (error: unknown): boolean => matches(error, 'Conflict', 409);
export const isInvalid = (error: unknown): boolean => matches(error, 'Invalid', 422);
export const isForbidden = (error: unknown): boolean => matches(error, 'Forbidden', 403);
export const isUnauthorized = (error: unknown): boolean => matches(error, 'Unauthorized', 401);
export const isBadRequest = (error: unknown): boolean => matches(error, 'BadRequest', 400);
/** The resourceVersion asked for is compacted away (410 Gone, reason `Expired` or `Gone`): relist. */
export const isGone = (error: unknown): boolean =>
  matches(error, 'Expired') || matches(error, 'Gone') || (error instanceof ApiError && error.code === 410);

/** Whether the error's Status lists a cause of this type (apimachinery's HasStatusCause), e.g. `NamespaceTerminating`. */
export function hasStatusCause(error: unknown, type: string): boolean {
  return error instanceof ApiError && (error.details?.causes ?? []).some((cause) => cause.reason === type);
}

/** What a non-Status error response means, in client-go's words (NewGenericServerResponse). */
const GENERIC: Readonly<Record<number, readonly [reason: string, message: string | null]>> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', null],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', null],
  409: ['Conflict', 'the server reported a conflict'],
  415: ['UnsupportedMediaType', null],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: [
    'Timeout',
    'the server was unable to return a response in the time allotted, but may still be processing the request',
  ],
};

export interface FailedRequest {
  /** The HTTP method (`GET`, `POST` ...). */
  readonly method: string;
  readonly group: string;
  readonly resource: string;
  readonly name: string;
}

/**
 * The error of a response with a non-2xx code: its body when that is a Status, else a Status
 * made up from the code as client-go makes one.
 */
export function errorFromResponse(code: number, body: string, request?: FailedRequest): ApiError {
  const status = parseStatus(body);
  if (status) return new ApiError({ ...status, code: status.code || code });
  const serverMessage = body.trim();
  const known = GENERIC[code];
  let reason = '';
  let message = `the server responded with the status code ${code} but did not return more information`;
  if (known) {
    reason = code === 409 && request?.method === 'POST' ? 'AlreadyExists' : known[0];
    // Forbidden, NotAcceptable and UnsupportedMediaType keep the server's own words.
    message = known[1] ?? serverMessage;
  } else if (code >= 500) {
    reason = 'InternalError';
    message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  }
  if (request?.resource) {
    const qualified = request.group ? `${request.resource}.${request.group}` : request.resource;
    message += ` (${request.method.toLowerCase()} ${qualified}${request.name ? ` ${request.name}` : ''})`;
  }
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason: reason || undefined,
    message,
    details: {
      group: request?.group || undefined,
      kind: request?.resource || undefined,
      name: request?.name || undefined,
      causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }],
    },
  });
}

/** The Status in a response body, if that is what it holds. */
export function parseStatus(body: string): Status | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    if (typeof value === 'object' && value !== null && (value as Status).kind === 'Status')
      return value as Status;
  } catch {
    // not JSON: the caller describes the response itself
  }
  return undefined;
}
