// The bodies of /openapi/v2, /openapi/v3 and /openapi/v3/<path>, rendered once per resource table and
// kept. Each comes with the hash kube-openapi gives it (upper-case hex SHA-512 of the JSON), which the
// v3 index puts in every serverRelativeURL and the server sends, quoted, as the ETag.

import { createHash } from 'node:crypto';
import { BUILTIN_TABLE, type ResourceTable } from '../discovery/table.js';
import type { WebService } from './route-types.js';
import { webServices } from './routes.js';
import { BUILTIN_SCHEMAS, type SchemaSource } from './schema-source.js';
import { buildV2Document } from './v2-document.js';
import { buildV3Document } from './v3-document.js';

export interface OpenAPIDocument {
  readonly body: Buffer;
  /** Upper-case hex SHA-512 of `body`. */
  readonly hash: string;
  /** `hash` in double quotes: the ETag header value, compared verbatim with If-None-Match. */
  readonly etag: string;
}

function renderDocument(value: unknown): OpenAPIDocument {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
  return { body, hash, etag: `"${hash}"` };
}

/** `/openapi/v3/apis/apps/v1?hash=<HASH>`, as the v3 index links a document. */
export function serverRelativeURL(path: string, hash: string): string {
  return `/openapi/v3/${path}?hash=${encodeURIComponent(hash)}`;
}

export class OpenAPIDocuments {
  private readonly services: ReadonlyMap<string, WebService>;
  private readonly v3Cache = new Map<string, OpenAPIDocument>();
  private v2Cache: OpenAPIDocument | undefined;
  private indexCache: OpenAPIDocument | undefined;

  constructor(
    table: ResourceTable = BUILTIN_TABLE,
    private readonly schemas: SchemaSource = BUILTIN_SCHEMAS,
  ) {
    this.services = new Map(webServices(table, schemas).map((service) => [service.root, service]));
  }

  /** The document paths of the v3 index (`api`, `api/v1`, `apis/apps/v1`, `version`, ...), sorted. */
  v3Paths(): string[] {
    return [...this.services.keys()].sort();
  }

  /** `/openapi/v3/<path>`, or undefined when no web service has that root. */
  v3(path: string): OpenAPIDocument | undefined {
    const cached = this.v3Cache.get(path);
    if (cached) return cached;
    const service = this.services.get(path);
    if (!service) return undefined;
    const document = renderDocument(buildV3Document(service, this.schemas));
    this.v3Cache.set(path, document);
    return document;
  }

  /** `/openapi/v3`: every document path with the URL of its current version. */
  v3Index(): OpenAPIDocument {
    if (!this.indexCache) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const path of this.v3Paths())
        paths[path] = { serverRelativeURL: serverRelativeURL(path, this.v3(path)!.hash) };
      this.indexCache = renderDocument({ paths });
    }
    return this.indexCache;
  }

  /** `/openapi/v2`. */
  v2(): OpenAPIDocument {
    this.v2Cache ??= renderDocument(buildV2Document([...this.services.values()], this.schemas));
    return this.v2Cache;
  }
}

const byTable = new WeakMap<ResourceTable, OpenAPIDocuments>();

/** The documents of `table`, built on first use and kept for as long as the table object lives. */
export function openAPIDocuments(
  table: ResourceTable = BUILTIN_TABLE,
  schemas: SchemaSource = BUILTIN_SCHEMAS,
): OpenAPIDocuments {
  let documents = byTable.get(table);
  if (!documents) {
    documents = new OpenAPIDocuments(table, schemas);
    byTable.set(table, documents);
  }
  return documents;
}

export type V3Answer =
  | { readonly kind: 'redirect'; readonly location: string }
  | {
      readonly kind: 'document';
      readonly document: OpenAPIDocument;
      readonly headers: Record<string, string>;
    };

/**
 * How kube-openapi answers GET /openapi/v3/<path>[?hash=...]: a hash that is not the current one
 * redirects (301) to the current URL; the current one makes the answer immutable for a year. The
 * headers exclude Last-Modified; answer 304 when If-None-Match equals `document.etag`.
 */
export function answerV3(
  documents: OpenAPIDocuments,
  path: string,
  hashQuery: string | null,
  now: Date = new Date(),
): V3Answer | undefined {
  const document = documents.v3(path);
  if (!document) return undefined;
  if (hashQuery && hashQuery !== document.hash) {
    return { kind: 'redirect', location: serverRelativeURL(path, document.hash) };
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    ETag: document.etag,
    Vary: 'Accept',
  };
  if (hashQuery) {
    const expires = new Date(now);
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    headers['Cache-Control'] = 'public, immutable';
    headers.Expires = expires.toUTCString();
  }
  return { kind: 'document', document, headers };
}
