// /openapi/v2 as protobuf, the encoding kubectl asks for: kube-openapi parses its JSON document with
// gnostic into an openapi_v2.Document message and marshals that. The document is fixed once built,
// so each encoding is computed once and kept.

import type { OpenAPIDocument } from '../documents.js';
import type { JsonObject } from './message.js';
import { openAPIV2Document } from './openapi-v2-messages.js';
import { ProtoWriter } from './writer.js';

const encoded = new WeakMap<object, Buffer>();
const documents = new WeakMap<OpenAPIDocument, OpenAPIDocument>();

/** The gnostic `openapi.v2.Document` message bytes for a Swagger 2.0 document (parsed JSON). */
export function encodeOpenApiV2Protobuf(document: object): Buffer {
  let bytes = encoded.get(document);
  if (!bytes) {
    const writer = new ProtoWriter();
    openAPIV2Document(writer, document as JsonObject);
    bytes = writer.finish();
    encoded.set(document, bytes);
  }
  return bytes;
}

/**
 * The protobuf form of the JSON /openapi/v2 document. It keeps the JSON's hash and ETag, as
 * kube-openapi derives the protobuf cache entry from the JSON one without a new ETag.
 */
export function openAPIV2Protobuf(json: OpenAPIDocument): OpenAPIDocument {
  let document = documents.get(json);
  if (!document) {
    const body = encodeOpenApiV2Protobuf(JSON.parse(json.body.toString('utf8')) as object);
    document = { body, hash: json.hash, etag: json.etag };
    documents.set(json, document);
  }
  return document;
}
