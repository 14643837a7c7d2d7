import { notAcceptable } from '../status.js';

/** How the client wants a GET/LIST answered. */
export type Rendering = 'object' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const [k, v = ''] = p.split('=');
      if (k) params[k.trim()] = v.trim();
    }
    return { type: type.toLowerCase(), params };
  });
}

const SERVED_TYPES = ['application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io'];

/**
 * Picks the first media range we can serve: JSON, optionally as a Table or as partial
 * object metadata (meta.k8s.io v1 or v1beta1). Protobuf and anything else are skipped, and
 * when nothing is left the answer is 406, so clients fall back to JSON.
 */
export function negotiate(accept: string | undefined, list: boolean): Rendering {
  for (const range of parseAccept(accept)) {
    if (range.type !== 'application/json' && range.type !== '*/*' && range.type !== 'application/*') continue;
    const as = range.params.as;
    if (as === undefined) return 'object';
    const groupOk =
      range.params.g === 'meta.k8s.io' && (range.params.v === 'v1' || range.params.v === 'v1beta1');
    if (!groupOk) continue;
    if (as === 'Table') return 'Table';
    if (as === 'PartialObjectMetadata' && !list) return 'PartialObjectMetadata';
    if (as === 'PartialObjectMetadataList' && list) return 'PartialObjectMetadataList';
  }
  throw notAcceptable(SERVED_TYPES);
}

/**
 * For endpoints with no Table convertor (reviews, token requests, bindings, evictions): only
 * the object itself can be served, so a client asking for nothing else gets 406, as
 * kube-apiserver's AllowsMediaTypeTransform answers when the endpoint has no TableConvertor.
 */
export function negotiateObjectOnly(accept: string | undefined): void {
  for (const range of parseAccept(accept)) {
    if (range.type !== 'application/json' && range.type !== '*/*' && range.type !== 'application/*') continue;
    if (range.params.as === undefined) return;
  }
  throw notAcceptable(['application/json']);
}
