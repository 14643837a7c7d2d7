import {
  JWKS_CONTENT_TYPE,
  JWKS_PATH,
  OIDC_CACHE_CONTROL,
  OPENID_CONFIGURATION_CONTENT_TYPE,
  OPENID_CONFIGURATION_PATH,
  oidcDiscoveryDocuments,
} from '../auth/oidc-discovery.js';
import type { RequestContext } from '../http/types.js';

type PathHandler = (ctx: RequestContext) => void;

/** The service-account issuer's OIDC discovery paths, so others can verify tkube's tokens. */
export function oidcPaths(issuer: string, publicKeyPem: string): Record<string, PathHandler> {
  const documents = oidcDiscoveryDocuments({
    issuer,
    jwksUri: `${issuer}${JWKS_PATH}`,
    keys: [publicKeyPem],
  });
  const serve =
    (body: string, contentType: string): PathHandler =>
    (ctx) => {
      ctx.res.writeHead(200, {
        'content-type': contentType,
        'cache-control': OIDC_CACHE_CONTROL,
        'content-length': String(Buffer.byteLength(body)),
      });
      ctx.res.end(body);
    };
  return {
    [OPENID_CONFIGURATION_PATH]: serve(documents.configuration, OPENID_CONFIGURATION_CONTENT_TYPE),
    [JWKS_PATH]: serve(documents.keySet, JWKS_CONTENT_TYPE),
  };
}
