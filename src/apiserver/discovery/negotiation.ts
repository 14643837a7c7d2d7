// Which document /api and /apis answer with, from the Accept header. client-go asks for
// `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,...;v=v2beta1;...,application/json`:
// the first acceptable clause (by q, then order) wins. 1.33 accepts only v2 as an aggregated type.

export type DiscoveryRendering = 'aggregated' | 'legacy';

interface AcceptClause {
  readonly type: string;
  readonly subtype: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
}

function parseClause(text: string): AcceptClause | undefined {
  const [range = '', ...rawParams] = text.split(';').map((part) => part.trim());
  const [type, subtype] = range.toLowerCase().split('/');
  if (!type || !subtype) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq <= 0) continue;
    const key = raw.slice(0, eq).trim().toLowerCase();
    const value = raw.slice(eq + 1).trim();
    if (key === 'q') q = Number.parseFloat(value);
    else params.set(key, value);
  }
  return Number.isNaN(q) ? undefined : { type, subtype, params, q };
}

function isJson(clause: AcceptClause): boolean {
  return (
    (clause.type === 'application' || clause.type === '*') &&
    (clause.subtype === 'json' || clause.subtype === '*')
  );
}

function isAggregatedV2(params: ReadonlyMap<string, string>): boolean {
  return (
    params.get('g') === 'apidiscovery.k8s.io' &&
    params.get('v') === 'v2' &&
    params.get('as') === 'APIGroupDiscoveryList'
  );
}

/**
 * `aggregated` when the client accepts apidiscovery.k8s.io/v2 APIGroupDiscoveryList as JSON before
 * anything else it accepts; `legacy` otherwise (including v2beta1 requests, which 1.33 no longer
 * serves, and headers that accept nothing: normal negotiation then decides on 406).
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryRendering {
  const clauses = (accept ?? '')
    .split(',')
    .map(parseClause)
    .filter((clause): clause is AcceptClause => clause !== undefined && clause.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const clause of clauses) {
    if (!isJson(clause)) continue;
    if (!clause.params.has('as')) return 'legacy';
    if (isAggregatedV2(clause.params)) return 'aggregated';
  }
  return 'legacy';
}
