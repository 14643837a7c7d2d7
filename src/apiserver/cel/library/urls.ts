// Kubernetes' URL functions (k8s.io/apiserver/pkg/cel/library/urls.go): url(), isURL() and the
// parts of a URL. Like Go's url.ParseRequestURI, a URL is absolute or an absolute path.
import type { Environment } from '@marcbachmann/cel-js';

/** A parsed URL as a CEL value (`kubernetes.URL`). */
export class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {}
}

export function parseRequestURI(text: string): CelURL | undefined {
  if (text.startsWith('/')) {
    const q = text.indexOf('?');
    return q < 0 ? new CelURL('', '', text, '') : new CelURL('', '', text.slice(0, q), text.slice(q + 1));
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text);
  if (scheme === null || /\s/.test(text)) return undefined;
  try {
    const url = new URL(text);
    const hostStart = text.indexOf('//') === scheme[0].length ? scheme[0].length + 2 : -1;
    let host = '';
    if (hostStart >= 0) {
      const end = text.slice(hostStart).search(/[/?#]/);
      host = end < 0 ? text.slice(hostStart) : text.slice(hostStart, hostStart + end);
      const at = host.lastIndexOf('@');
      if (at >= 0) host = host.slice(at + 1);
    }
    const rest = hostStart >= 0 ? text.slice(hostStart + host.length) : text.slice(scheme[0].length);
    const q = rest.indexOf('?');
    const path = q < 0 ? rest : rest.slice(0, q);
    const query = url.search.startsWith('?') ? url.search.slice(1) : '';
    return new CelURL(scheme[1]!, host, path.replace(/#.*$/, ''), query);
  } catch {
    return undefined;
  }
}

function hostname(url: CelURL): string {
  const host = url.host;
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function port(url: CelURL): string {
  const host = url.host;
  const colon = host.lastIndexOf(':');
  if (colon < 0 || colon < host.lastIndexOf(']')) return '';
  return host.slice(colon + 1);
}

export function registerUrls(env: Environment): void {
  const T = 'kubernetes.URL';
  env.registerType(T, CelURL);
  env.registerFunction(`url(string): ${T}`, (text: string) => {
    const url = parseRequestURI(text);
    if (url === undefined)
      throw new Error(
        `URL parse error during conversion from string: parse "${text}": invalid URI for request`,
      );
    return url;
  });
  env.registerFunction('isURL(string): bool', (text: string) => parseRequestURI(text) !== undefined);
  env.registerFunction(`${T}.getScheme(): string`, (url: CelURL) => url.scheme);
  env.registerFunction(`${T}.getHost(): string`, (url: CelURL) => url.host);
  env.registerFunction(`${T}.getHostname(): string`, hostname);
  env.registerFunction(`${T}.getPort(): string`, port);
  env.registerFunction(`${T}.getEscapedPath(): string`, (url: CelURL) => url.path);
  env.registerFunction(`${T}.getQuery(): map<string, list<string>>`, (url: CelURL) => {
    const query = new Map<string, string[]>();
    for (const [key, value] of new URLSearchParams(url.query))
      query.set(key, [...(query.get(key) ?? []), value]);
    return query;
  });
}
