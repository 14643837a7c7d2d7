// Reading API errors without depending on the transport: whatever the client throws carries the
// HTTP code (`code`, or the Status it wraps), as client-go's StatusError does.

import { isJsonObject } from '../../api/object.js';
import type { Status } from '../../api/types/meta-v1.generated.js';

/** An ERROR watch event turned into a thrown error, shaped like the client's ApiError. */
export class WatchStatusError extends Error {
  readonly code: number;
  readonly reason: string;

  constructor(readonly status: Status) {
    super(status.message ?? `watch error: ${status.reason ?? 'unknown'}`);
    this.name = 'WatchStatusError';
    this.code = status.code ?? 500;
    this.reason = status.reason ?? '';
  }
}

function statusOf(error: unknown): { code?: unknown; reason?: unknown } | undefined {
  if (!isJsonObject(error) && !(error instanceof Error)) return undefined;
  const record = error as { code?: unknown; reason?: unknown; status?: unknown };
  if (typeof record.code === 'number') return record;
  if (isJsonObject(record.status)) return record.status as { code?: unknown; reason?: unknown };
  return undefined;
}

/** The HTTP status code an API error carries, or undefined for other failures (network ...). */
export function apiErrorCode(error: unknown): number | undefined {
  const code = statusOf(error)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The Status reason an API error carries (`NotFound`, `Expired` ...), or `''`. */
export function apiErrorReason(error: unknown): string {
  const reason = statusOf(error)?.reason;
  return typeof reason === 'string' ? reason : '';
}

/** 410 Gone / reason Expired: the resourceVersion asked for was compacted away. */
export function isExpiredError(error: unknown): boolean {
  const reason = apiErrorReason(error);
  return apiErrorCode(error) === 410 || reason === 'Expired' || reason === 'Gone';
}

export function isNotFoundError(error: unknown): boolean {
  return apiErrorCode(error) === 404;
}
