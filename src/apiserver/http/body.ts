import { isJsonObject, type JsonObject } from '../../api/object.js';
import { badRequest, requestEntityTooLarge } from '../status.js';
import type { ApiRequest } from './types.js';

/** kube-apiserver's limit for a request body (3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: ApiRequest): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_REQUEST_BODY_BYTES) {
    req.resume();
    throw requestEntityTooLarge(MAX_REQUEST_BODY_BYTES);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BODY_BYTES) throw requestEntityTooLarge(MAX_REQUEST_BODY_BYTES);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON object body; anything else is a 400 naming the problem. */
export function parseJsonObject(body: Buffer): JsonObject {
  if (body.length === 0) throw badRequest('the request body is empty');
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw badRequest(`json parse error: ${(error as Error).message}`);
  }
  if (!isJsonObject(value)) {
    throw badRequest(
      `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct`,
    );
  }
  return value;
}
