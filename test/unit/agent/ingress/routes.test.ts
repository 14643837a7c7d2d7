// The ingress routing table: host precedence (exact over one-label wildcard), path precedence
// (longest first, Exact before Prefix, element-wise prefixes), default backends, and the oldest
// Ingress keeping an overlapping rule.
import { describe, expect, it } from 'vitest';
import { buildRouteTable, hostMatches } from '../../../../src/agent/ingress/routes.js';
import type {
  HTTPIngressPath,
  Ingress,
  IngressBackend,
} from '../../../../src/api/types/networking-v1.generated.js';

const to = (name: string): IngressBackend => ({ service: { name, port: { number: 80 } } });
const path = (value: string, pathType: string, service: string): HTTPIngressPath => ({
  path: value,
  pathType,
  backend: to(service),
});

function ingress(
  name: string,
  spec: Ingress['spec'],
  created = '2026-01-01T00:00:00Z',
  namespace = 'default',
): Ingress {
  return { metadata: { name, namespace, creationTimestamp: created }, spec };
}

const served = (table: ReturnType<typeof buildRouteTable>, host: string, value: string) =>
  table.match(host, value)?.backend.service?.name;

describe('ingress routes', () => {
  const table = buildRouteTable([
    ingress('web', {
      rules: [
        {
          host: 'a.example.com',
          http: {
            paths: [
              path('/', 'Prefix', 'root'),
              path('/api', 'Prefix', 'api'),
              path('/api/v2', 'ImplementationSpecific', 'api-v2'),
              path('/api', 'Exact', 'api-exact'),
              path('/static/', 'Prefix', 'static'),
            ],
          },
        },
        { host: '*.example.com', http: { paths: [path('/', 'Prefix', 'wild')] } },
        { host: 'exact.example.com', http: { paths: [path('/only', 'Exact', 'only')] } },
      ],
    }),
  ]);

  it('prefers the longest path and Exact over Prefix of the same path', () => {
    expect(served(table, 'a.example.com', '/api')).toBe('api-exact');
    expect(served(table, 'a.example.com', '/api/')).toBe('api');
    expect(served(table, 'a.example.com', '/api/users')).toBe('api');
    expect(served(table, 'a.example.com', '/api/v2/x')).toBe('api-v2');
    expect(served(table, 'a.example.com', '/other')).toBe('root');
  });

  it('matches Prefix paths by element, ignoring a trailing slash and the query', () => {
    expect(served(table, 'a.example.com', '/apix')).toBe('root');
    expect(served(table, 'a.example.com', '/static')).toBe('static');
    expect(served(table, 'a.example.com', '/static/app.js?v=1')).toBe('static');
    expect(served(table, 'a.example.com', '/api?x=1')).toBe('api-exact');
  });

  it('prefers an exact host over a wildcard covering one label, ignoring port and case', () => {
    expect(served(table, 'A.Example.com:8080', '/x')).toBe('root');
    expect(served(table, 'b.example.com', '/x')).toBe('wild');
    expect(served(table, 'c.b.example.com', '/x')).toBeUndefined();
    expect(served(table, 'example.com', '/x')).toBeUndefined();
    expect(served(table, 'exact.example.com', '/only')).toBe('only');
    // The host is served by its own rule, which has no such path: no wildcard fallback.
    expect(served(table, 'exact.example.com', '/only/more')).toBeUndefined();
  });

  it('sends unmatched requests to the default backends', () => {
    const withDefaults = buildRouteTable([
      ingress('catch', { defaultBackend: to('fallback') }),
      ingress('site', {
        defaultBackend: to('site-default'),
        rules: [{ host: 'site.test', http: { paths: [path('/app', 'Prefix', 'app')] } }],
      }),
      ingress('hostless', { rules: [{ http: { paths: [path('/health', 'Exact', 'health')] } }] }),
    ]);
    expect(served(withDefaults, 'site.test', '/app/1')).toBe('app');
    expect(served(withDefaults, 'site.test', '/elsewhere')).toBe('site-default');
    expect(served(withDefaults, 'unknown.test', '/health')).toBe('health');
    expect(served(withDefaults, 'unknown.test', '/')).toBe('fallback');
  });

  it('keeps an overlapping rule with the oldest Ingress and reports the newer one', () => {
    const overlapping = buildRouteTable([
      ingress(
        'newer',
        { rules: [{ host: 'x.test', http: { paths: [path('/', 'Prefix', 'new')] } }] },
        '2026-02-01T00:00:00Z',
      ),
      ingress(
        'older',
        { rules: [{ host: 'x.test', http: { paths: [path('/', 'Prefix', 'old')] } }] },
        '2026-01-01T00:00:00Z',
      ),
    ]);
    expect(served(overlapping, 'x.test', '/')).toBe('old');
    expect(overlapping.overlaps).toEqual([
      {
        namespace: 'default',
        ingress: 'newer',
        host: 'x.test',
        path: '/',
        pathType: 'Prefix',
        keptBy: 'default/older',
      },
    ]);
    expect(overlapping.match('x.test', '/')?.ingress).toBe('older');
  });

  it('matches TLS hosts exactly or by a one-label wildcard', () => {
    expect(hostMatches('*.example.com', 'a.example.com')).toBe(true);
    expect(hostMatches('*.example.com', 'a.b.example.com')).toBe(false);
    expect(hostMatches('*.example.com', 'example.com')).toBe(false);
    expect(hostMatches('Secure.Test', 'secure.test')).toBe(true);
  });
});
