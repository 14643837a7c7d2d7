import { type StatusError, success } from '../status.js';
import type { ApiResponse } from './types.js';

const JSON_TYPE = 'application/json';

/** Writes a JSON body that is already text (stored objects are served without re-encoding). */
export function sendJsonText(
  res: ApiResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  const buffer = Buffer.from(body);
  res.writeHead(code, { 'content-type': JSON_TYPE, 'content-length': String(buffer.length), ...headers });
  res.end(buffer);
}

export function sendJson(
  res: ApiResponse,
  code: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  sendJsonText(res, code, JSON.stringify(body), headers);
}

export function sendStatusError(res: ApiResponse, error: StatusError): void {
  const headers: Record<string, string> = {};
  if (error.details?.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(error.details.retryAfterSeconds);
  sendJson(res, error.code, error.toStatus(), headers);
}

export function sendSuccess(res: ApiResponse): void {
  sendJson(res, 200, success());
}

export function sendText(res: ApiResponse, code: number, text: string): void {
  res.writeHead(code, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}
