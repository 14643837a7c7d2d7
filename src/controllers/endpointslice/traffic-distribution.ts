// The hints a Service's `spec.trafficDistribution` asks for (k8s.io/endpointslice trafficdist):
// PreferClose and PreferSameZone give each ready endpoint a hint for its own zone, PreferSameNode
// also one for its own node; without a preference no endpoint carries hints. Proxies then keep
// a client's traffic on its node or in its zone where such an endpoint is ready.
import type { Endpoint, EndpointHints, EndpointSlice } from '../../api/types/discovery-v1.generated.js';

const CLOSE_DISTRIBUTIONS = new Set(['PreferClose', 'PreferSameZone', 'PreferSameNode']);

/** The hints `endpoint` should carry; undefined: none. Not-ready endpoints keep what they have. */
function wantedHints(endpoint: Endpoint, trafficDistribution: string | undefined): EndpointHints | undefined {
  if (trafficDistribution === undefined || !CLOSE_DISTRIBUTIONS.has(trafficDistribution)) return undefined;
  if (endpoint.conditions?.ready !== true) return endpoint.hints;
  const forZones = endpoint.zone !== undefined ? [{ name: endpoint.zone }] : undefined;
  const forNodes =
    endpoint.nodeName !== undefined && trafficDistribution === 'PreferSameNode'
      ? [{ name: endpoint.nodeName }]
      : undefined;
  if (!forZones && !forNodes) return undefined;
  return { ...(forZones && { forZones }), ...(forNodes && { forNodes }) };
}

function sameHints(a: EndpointHints | undefined, b: EndpointHints | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const names = (hints: readonly { name: string }[] | undefined) =>
    JSON.stringify((hints ?? []).map((h) => h.name));
  return names(a.forZones) === names(b.forZones) && names(a.forNodes) === names(b.forNodes);
}

/** Whether some endpoint of the slice lacks the hints it should carry, or carries stale ones. */
export function hintsNeedUpdate(slice: EndpointSlice, trafficDistribution: string | undefined): boolean {
  return (slice.endpoints ?? []).some(
    (endpoint) => !sameHints(endpoint.hints, wantedHints(endpoint, trafficDistribution)),
  );
}

/** The endpoint with the hints it should carry (the same object when they are already right). */
export function withHints(endpoint: Endpoint, trafficDistribution: string | undefined): Endpoint {
  const hints = wantedHints(endpoint, trafficDistribution);
  if (sameHints(endpoint.hints, hints)) return endpoint;
  const { hints: _old, ...rest } = endpoint;
  return hints ? { ...rest, hints } : rest;
}
