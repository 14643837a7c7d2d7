import type { APIGroupList } from '../../api/types/meta-v1.generated.js';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  type APIGroupDiscoveryList,
  aggregatedCoreDiscovery,
  aggregatedDiscoveryETag,
  aggregatedGroupsDiscovery,
} from '../discovery/aggregated.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from '../discovery/legacy.js';
import { negotiateDiscovery } from '../discovery/negotiation.js';
import { BUILTIN_TABLE, type ResourceTable } from '../discovery/table.js';
import { versionBody } from '../discovery/version.js';
import { sendJson, sendJsonText } from '../http/respond.js';
import type { RequestContext } from '../http/types.js';
import { answerV3, openAPIDocuments } from '../openapi/documents.js';
import { openAPIV2Protobuf } from '../openapi/protobuf/encode.js';
import {
  negotiateOpenAPIV2,
  OPENAPI_V2_JSON_CONTENT_TYPE,
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
} from '../openapi/protobuf/negotiate.js';
import type { SchemaSource } from '../openapi/schema-source.js';
import { methodNotAllowedByRoute, notAcceptable } from '../status.js';

/** What the aggregator adds to /apis: the groups of service-backed APIServices. */
export interface DiscoveryMerge {
  groupList(list: APIGroupList): APIGroupList;
  groupDiscovery(document: APIGroupDiscoveryList): APIGroupDiscoveryList;
}

/**
 * Serves discovery (/api, /apis and below, legacy and aggregated), /version and the OpenAPI
 * documents. Returns false for any other path.
 */
export function serveDiscovery(
  ctx: RequestContext,
  serverAddress: string,
  table: ResourceTable = BUILTIN_TABLE,
  schemas?: SchemaSource,
  merge?: DiscoveryMerge,
): boolean {
  const path = ctx.path.replace(/\/+$/, '') || '/';
  const parts = path.split('/').filter((p) => p !== '');
  if (path === '/version') {
    requireGet(ctx);
    sendJsonText(ctx.res, 200, versionBody());
    return true;
  }
  if (path === '/api' || path === '/apis') {
    requireGet(ctx);
    if (negotiateDiscovery(ctx.headers.accept) === 'aggregated') {
      const document =
        path === '/api'
          ? aggregatedCoreDiscovery(table)
          : (merge?.groupDiscovery ?? ((d: APIGroupDiscoveryList) => d))(aggregatedGroupsDiscovery(table));
      const etag = `"${aggregatedDiscoveryETag(document)}"`;
      const headers = { etag, vary: 'Accept', 'cache-control': 'public' };
      if (ctx.headers['if-none-match'] === etag) {
        ctx.res.writeHead(304, headers);
        ctx.res.end();
      } else {
        sendJsonText(ctx.res, 200, JSON.stringify(document), {
          ...headers,
          'content-type': AGGREGATED_DISCOVERY_CONTENT_TYPE,
        });
      }
      return true;
    }
    const groups = () => apiGroupList(table);
    sendJson(
      ctx.res,
      200,
      path === '/api' ? apiVersions(serverAddress) : merge ? merge.groupList(groups()) : groups(),
    );
    return true;
  }
  if (parts[0] === 'api' && parts.length === 2)
    return sendIfFound(ctx, apiResourceList('', parts[1]!, table));
  if (parts[0] === 'apis' && parts.length === 2) return sendIfFound(ctx, apiGroup(parts[1]!, table));
  if (parts[0] === 'apis' && parts.length === 3)
    return sendIfFound(ctx, apiResourceList(parts[1]!, parts[2]!, table));
  if (path === '/openapi/v2') {
    // JSON, or the gnostic protobuf encoding kubectl asks for; both carry the JSON's ETag.
    const encoding = negotiateOpenAPIV2(ctx.headers.accept);
    if (!encoding) throw notAcceptable([OPENAPI_V2_JSON_CONTENT_TYPE, OPENAPI_V2_PROTOBUF_CONTENT_TYPE]);
    const json = openAPIDocuments(table, schemas).v2();
    const document = encoding === 'json' ? json : openAPIV2Protobuf(json);
    const headers = {
      'content-type': encoding === 'json' ? OPENAPI_V2_JSON_CONTENT_TYPE : OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
      etag: document.etag,
      vary: 'Accept',
    };
    if (ctx.headers['if-none-match'] === document.etag) {
      ctx.res.writeHead(304, headers);
      ctx.res.end();
    } else {
      ctx.res.writeHead(200, { ...headers, 'content-length': String(document.body.length) });
      ctx.res.end(document.body);
    }
    return true;
  }
  if (path === '/openapi/v3') {
    sendJsonText(ctx.res, 200, openAPIDocuments(table, schemas).v3Index().body.toString('utf8'));
    return true;
  }
  if (parts[0] === 'openapi' && parts[1] === 'v3' && parts.length > 2) {
    const answer = answerV3(
      openAPIDocuments(table, schemas),
      parts.slice(2).join('/'),
      ctx.query.get('hash'),
    );
    if (!answer) return false;
    if (answer.kind === 'redirect') {
      ctx.res.writeHead(301, { location: answer.location });
      ctx.res.end();
    } else if (ctx.headers['if-none-match'] === answer.document.etag) {
      ctx.res.writeHead(304, answer.headers);
      ctx.res.end();
    } else {
      ctx.res.writeHead(200, { ...answer.headers, 'content-length': String(answer.document.body.length) });
      ctx.res.end(answer.document.body);
    }
    return true;
  }
  return false;
}

function sendIfFound(ctx: RequestContext, body: unknown): boolean {
  if (body === undefined) return false;
  requireGet(ctx);
  sendJson(ctx.res, 200, body);
  return true;
}

/**
 * /version and the discovery documents are go-restful routes for GET alone: another method gets
 * go-restful's 405, which the apiserver's service error handler wraps in a Status.
 */
function requireGet(ctx: RequestContext): void {
  if (ctx.method === 'GET') return;
  throw methodNotAllowedByRoute();
}
