// The ingress controller's routing table (ingress-nginx's server/location model, with the
// matching rules of the Ingress API reference): rules of every Ingress merged per host; an exact
// host beats a wildcard one (`*.example.com` covers exactly one more label); within a host the
// longest matching path wins, `Exact` before `Prefix` of the same path; `Prefix` matches by
// path elements (`/foo` matches `/foo/bar`, not `/foobar`); `ImplementationSpecific` is a prefix,
// as ingress-nginx treats it without regular expressions. The same host, path and type in two
// Ingresses: the oldest keeps it (creation time, then namespace/name) and the newer one is
// reported as overlapping. A pure function over the Ingresses, so it is tested without a cluster.
import type { Ingress, IngressBackend } from '../../api/types/networking-v1.generated.js';

/** Where a matched request goes, with the Ingress that routed it (for events and namespaces). */
export interface RouteTarget {
  readonly namespace: string;
  readonly ingress: string;
  readonly backend: IngressBackend;
}

interface PathRoute {
  readonly path: string;
  readonly exact: boolean;
  readonly target: RouteTarget;
}

/** A rule shadowed by an older Ingress's identical one. */
export interface Overlap {
  readonly namespace: string;
  readonly ingress: string;
  readonly host: string;
  readonly path: string;
  readonly pathType: string;
  /** `namespace/name` of the Ingress that keeps the rule. */
  readonly keptBy: string;
}

export interface RouteTable {
  /** The backend for a request's host (port and case ignored) and path, or none (404). */
  match(host: string, path: string): RouteTarget | undefined;
  readonly overlaps: readonly Overlap[];
}

const CATCH_ALL = '';

/** Builds the table from the Ingresses this controller serves. */
export function buildRouteTable(ingresses: readonly Ingress[]): RouteTable {
  const hosts = new Map<string, PathRoute[]>();
  const defaults = new Map<string, RouteTarget>();
  const seen = new Map<string, string>();
  const overlaps: Overlap[] = [];
  let catchAll: RouteTarget | undefined;
  for (const ingress of [...ingresses].sort(olderFirst)) {
    const namespace = ingress.metadata?.namespace ?? 'default';
    const name = ingress.metadata?.name ?? '';
    const target = (backend: IngressBackend): RouteTarget => ({ namespace, ingress: name, backend });
    const spec = ingress.spec ?? {};
    if (spec.defaultBackend) catchAll ??= target(spec.defaultBackend);
    for (const rule of spec.rules ?? []) {
      const host = (rule.host ?? CATCH_ALL).toLowerCase();
      if (spec.defaultBackend && !defaults.has(host)) defaults.set(host, target(spec.defaultBackend));
      for (const path of rule.http?.paths ?? []) {
        const value = path.path || '/';
        const key = `${host}\u0000${value}\u0000${path.pathType}`;
        const owner = seen.get(key);
        if (owner !== undefined) {
          if (owner !== `${namespace}/${name}`) {
            overlaps.push({
              namespace,
              ingress: name,
              host,
              path: value,
              pathType: path.pathType,
              keptBy: owner,
            });
          }
          continue;
        }
        seen.set(key, `${namespace}/${name}`);
        const routes = hosts.get(host) ?? [];
        routes.push({ path: value, exact: path.pathType === 'Exact', target: target(path.backend) });
        hosts.set(host, routes);
      }
    }
  }
  for (const routes of hosts.values()) routes.sort(longestFirst);
  return {
    overlaps,
    match(rawHost, rawPath) {
      const host = hostWithoutPort(rawHost).toLowerCase();
      const path = rawPath.split('?')[0] || '/';
      for (const candidate of hostCandidates(host)) {
        const routes = hosts.get(candidate);
        if (!routes && !defaults.has(candidate)) continue;
        const found = routes?.find((route) => pathMatches(route, path));
        if (found) return found.target;
        // The host is served: its Ingress's default backend, else the catch-all's.
        return defaults.get(candidate) ?? catchAllRoute(hosts, path) ?? catchAll;
      }
      return catchAllRoute(hosts, path) ?? catchAll;
    },
  };
}

/** The rules without a host, which apply to every host no rule names. */
function catchAllRoute(hosts: Map<string, PathRoute[]>, path: string): RouteTarget | undefined {
  return hosts.get(CATCH_ALL)?.find((route) => pathMatches(route, path))?.target;
}

/** The host itself, then the wildcard covering it (`a.b.c` → `*.b.c`). */
function hostCandidates(host: string): string[] {
  const dot = host.indexOf('.');
  return dot > 0 ? [host, `*${host.slice(dot)}`] : [host];
}

export function hostWithoutPort(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

/** Whether `hostname` (from SNI or a TLS entry) is covered by `pattern`, exact or one-label wildcard. */
export function hostMatches(pattern: string, hostname: string): boolean {
  const name = hostname.toLowerCase();
  const wanted = pattern.toLowerCase();
  if (!wanted.startsWith('*.')) return wanted === name;
  const dot = name.indexOf('.');
  return dot > 0 && name.slice(dot) === wanted.slice(1);
}

function pathMatches(route: PathRoute, path: string): boolean {
  if (route.exact) return path === route.path;
  // Element-wise prefix; a trailing slash on either side is ignored.
  const prefix = route.path.replace(/\/+$/, '');
  if (prefix === '') return true;
  return path === prefix || path.startsWith(`${prefix}/`);
}

function longestFirst(a: PathRoute, b: PathRoute): number {
  const length = b.path.replace(/\/+$/, '').length - a.path.replace(/\/+$/, '').length;
  if (length !== 0) return length;
  return Number(b.exact) - Number(a.exact);
}

function olderFirst(a: Ingress, b: Ingress): number {
  const created = (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '');
  if (created !== 0) return created;
  const key = (ingress: Ingress) => `${ingress.metadata?.namespace ?? ''}/${ingress.metadata?.name ?? ''}`;
  return key(a).localeCompare(key(b));
}
