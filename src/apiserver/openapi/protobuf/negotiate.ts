// Which encoding of /openapi/v2 an Accept header gets, as kube-openapi's handler chooses: clauses by
// falling quality (more specific first on a tie); the first that names JSON or either protobuf
// media type (or a wildcard) wins; none means 406.

export const OPENAPI_V2_JSON_CONTENT_TYPE = 'application/json';
/** What the server answers with, whichever of the two protobuf names the client asked for. */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The older name, the one kubectl and client-go send. */
export const OPENAPI_V2_PROTOBUF_DEPRECATED_CONTENT_TYPE =
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

export type OpenAPIV2Encoding = 'json' | 'protobuf';

// The subtypes under `application/` that the server offers, in kube-openapi's order.
// The subtypes under `application/` the server offers, in kube-openapi's order.
const OFFERS: readonly (readonly [string, OpenAPIV2Encoding])[] = (
  [
    [OPENAPI_V2_JSON_CONTENT_TYPE, 'json'],
    [OPENAPI_V2_PROTOBUF_DEPRECATED_CONTENT_TYPE, 'protobuf'],
    [OPENAPI_V2_PROTOBUF_CONTENT_TYPE, 'protobuf'],
  ] as const
).map(([type, encoding]): [string, OpenAPIV2Encoding] => [type.slice('application/'.length), encoding]);

interface AcceptClause {
  type: string;
  subType: string;
  quality: number;
}

function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const [type = '', subType, ...rest] = range.split('/').map((token) => token.trim());
    if (rest.length > 0 || (subType === undefined && type !== '*')) continue;
    let quality = 1;
    for (const param of params) {
      const [name, value] = param.split('=', 2).map((token) => token.trim());
      if (name === 'q' && value !== undefined) quality = Number.parseFloat(value) || 0;
    }
    clauses.push({ type, subType: subType ?? '*', quality });
  }
  const specificity = (clause: AcceptClause) => (clause.type === '*' ? 0 : clause.subType === '*' ? 1 : 2);
  return clauses.sort((a, b) => b.quality - a.quality || specificity(b) - specificity(a));
}

/** The encoding to answer with, or undefined when the client accepts neither (406). */
export function negotiateOpenAPIV2(accept: string | undefined): OpenAPIV2Encoding | undefined {
  for (const clause of parseAccept(accept || '*/*')) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    for (const [subType, encoding] of OFFERS) {
      if (clause.subType === subType || clause.subType === '*') return encoding;
    }
  }
  return undefined;
}
