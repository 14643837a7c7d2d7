import { isJsonObject, type JsonObject } from '../../api/object.js';
import { exceedsGoNestingDepth, goJsonSyntaxError } from '../patch/go-json.js';
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
export function parseJsonObject(body: Buffer, expected?: { kind: string }): JsonObject {
  if (body.length === 0) throw badRequest('the request body is empty');
  const text = body.toString('utf8');
  // Refused before JSON.parse, as Go's scanner refuses it: a value this deep would overflow the
  // stack of every recursive walk after decoding (storage encoding first).
  if (exceedsGoNestingDepth(text)) {
    const problem = goJsonSyntaxError(body) ?? 'exceeded max depth';
    // transformDecodeError's wording when the kind could not be read (SimpleMetaFactory.Interpret).
    throw badRequest(
      `the object provided is unrecognized (must be of type ${expected?.kind ?? 'Object'}): ` +
        `couldn't get version/kind; json parse error: ${problem} (${summarizeBody(body)})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
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

/** apiserver's summarizeData: the first 30 bytes, as text when they open an object, else in hex. */
function summarizeBody(body: Buffer): string {
  const head = body.subarray(0, 30);
  const more = body.length > 30 ? ' ...' : '';
  return body[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
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
  /** The body's length in bytes as sent. */
  readonly bytes: number;
}

/** Like readObjectBody, and keeps a JSON body's bytes for strict field validation. */
export async function readObjectBodyWithSource(
  req: ApiRequest,
  expected: { group: string; version: string; kind: string },
  options: { optional?: boolean } = {},
): Promise<ObjectBody> {
  const body = await readBody(req);
  const bytes = body.length;
  if (options.optional && bytes === 0) return { object: {}, bytes };
  const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (contentType === 'application/json' || contentType === '')
    return { object: decodedObjectMeta(parseJsonObject(body, expected), expected), json: body, bytes };
  return { object: decodedObjectMeta(await decodeOther(body, contentType, expected), expected), bytes };
}

/**
 * What decoding into the Go type does to `metadata`: a value that is not an object cannot become
 * an ObjectMeta (400), and null fields (`labels: null`, `finalizers: null`, ...) decode to Go's
 * zero values, which every ObjectMeta field omits when empty.
 */
function decodedObjectMeta(object: JsonObject, expected: { version: string; kind: string }): JsonObject {
  if (!Object.hasOwn(object, 'metadata')) return object;
  const metadata = object.metadata;
  if (metadata === null) {
    delete object.metadata;
    return object;
  }
  if (!isJsonObject(metadata)) {
    const { kind, version } = expected;
    const valueKind = Array.isArray(metadata)
      ? 'array'
      : typeof metadata === 'boolean'
        ? 'bool'
        : typeof metadata;
    throw badRequest(
      `${kind} in version "${version}" cannot be handled as a ${kind}: json: cannot unmarshal ${valueKind} ` +
        `into Go struct field ${kind}.metadata of type v1.ObjectMeta`,
    );
  }
  for (const [field, value] of Object.entries(metadata)) if (value === null) delete metadata[field];
  return object;
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
