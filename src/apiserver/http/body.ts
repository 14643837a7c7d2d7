import { isJsonObject, type JsonObject } from '../../api/object.js';
import { PROTOBUF_CONTENT_TYPE } from '../protobuf/content-type.js';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from '../status.js';
import type { ApiRequest } from './types.js';

/** kube-apiserver's limit for a request body (3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export function readBody(req: ApiRequest): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_REQUEST_BODY_BYTES) {
    req.resume();
    return Promise.reject(requestEntityTooLarge(MAX_REQUEST_BODY_BYTES));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(prematureClose());
  // Listeners rather than `for await`: the async iterator costs every request a promise and an
  // iterator result per chunk. Ends as that loop would: too large destroys the stream, and a
  // stream closed before its end rejects.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BODY_BYTES) chunks.push(chunk);
      else {
        settle(requestEntityTooLarge(MAX_REQUEST_BODY_BYTES));
        req.destroy();
      }
    };
    const onEnd = () => settle(undefined);
    const onClose = () =>
      settle(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', settle);
    req.on('close', onClose);
  });
}

/** What a `for await` over a stream closed before its end throws. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
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

/** Media types a create or update body may use. */
export const REQUEST_BODY_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
] as const;

/**
 * Reads a create/update body as an object: JSON, or Kubernetes protobuf (what typed clients
 * such as kubectl's generators send), or YAML. Anything else is a 415.
 */
export async function readObjectBody(
  req: ApiRequest,
  expected: { group: string; version: string; kind: string },
  options: { optional?: boolean } = {},
): Promise<JsonObject> {
  return (await readObjectBodyWithSource(req, expected, options)).object;
}

export interface ObjectBody {
  readonly object: JsonObject;
  /** The bytes as sent, when they were JSON (field validation scans them). */
  readonly json?: Buffer;
}

/** Like readObjectBody, and keeps a JSON body's bytes for strict field validation. */
export async function readObjectBodyWithSource(
  req: ApiRequest,
  expected: { group: string; version: string; kind: string },
  options: { optional?: boolean } = {},
): Promise<ObjectBody> {
  const body = await readBody(req);
  if (options.optional && body.length === 0) return { object: {} };
  const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (contentType === 'application/json' || contentType === '')
    return { object: parseJsonObject(body), json: body };
  return { object: await decodeOther(body, contentType, expected) };
}

async function decodeOther(
  body: Buffer,
  contentType: string,
  expected: { group: string; version: string; kind: string },
): Promise<JsonObject> {
  // The decoders load on first use: few clients send protobuf or YAML, and the control plane
  // starts faster without compiling them (with their tables, a fifth of its code).
  if (contentType === PROTOBUF_CONTENT_TYPE) {
    const { decodeKubernetesProtobuf, ProtobufDecodeError } = await import('../protobuf/index.js');
    try {
      return decodeKubernetesProtobuf(body, expected) as JsonObject;
    } catch (error) {
      if (error instanceof ProtobufDecodeError) throw badRequest(error.message);
      throw error;
    }
  }
  if (contentType === 'application/yaml') {
    const { parseYaml } = await import('./yaml-body.js');
    let value: unknown;
    try {
      value = parseYaml(body.toString('utf8'));
    } catch (error) {
      throw badRequest(`yaml: ${(error as Error).message}`);
    }
    if (!isJsonObject(value)) throw badRequest('the request body is not an object');
    return value;
  }
  throw unsupportedMediaType(contentType, REQUEST_BODY_TYPES);
}
