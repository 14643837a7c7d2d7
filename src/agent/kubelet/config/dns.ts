// A pod's resolv.conf as the kubelet builds it (pkg/kubelet/network/dns): the cluster DNS
// server and search path for ClusterFirst, the node's resolver for Default (and for
// ClusterFirst pods on the host network), nothing for None; dnsConfig is merged on top, then the
// result is cut to what resolvers accept.
import type { Pod } from '../../../api/types/core-v1.generated.js';
import type { DnsConfig } from '../cri/types.js';

export { CLUSTER_DNS_IP, CLUSTER_DOMAIN } from '../../../api/cluster-dns.js';

const DEFAULT_OPTIONS = ['ndots:5'];
const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;
const MAX_SEARCH_PATH_LENGTH = 253;

export interface ResolvConf {
  readonly servers: readonly string[];
  readonly searches: readonly string[];
  readonly options: readonly string[];
}

export interface DnsSettings {
  readonly clusterDNS: readonly string[];
  readonly clusterDomain: string;
  /** The node's resolver (--resolv-conf), as the node's resolv.conf says. */
  readonly host: ResolvConf;
}

/** A resolv.conf file's nameservers, search list (trailing dots dropped; the last line wins) and options. */
export function parseResolvConf(text: string): ResolvConf {
  const servers: string[] = [];
  let searches: string[] = [];
  const options: string[] = [];
  for (const line of text.split('\n')) {
    const fields = line
      .replace(/[#;].*$/, '')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const [keyword, ...rest] = fields;
    if (keyword === 'nameserver' && rest[0]) servers.push(rest[0]);
    else if (keyword === 'search') searches = rest.filter((s) => s !== '.').map((s) => s.replace(/\.$/, ''));
    else if (keyword === 'options') options.push(...rest);
  }
  return { servers, searches, options };
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}

/**
 * The node's resolver as pods can use it. A node container's resolv.conf names Docker's
 * embedded DNS (127.0.0.11), which answers only inside the node's own network namespace: a pod
 * would reach nothing there, so loopback servers give way to the cluster DNS, which forwards
 * names outside the cluster.
 */
export function podUsableHostDns(host: ResolvConf, clusterDNS: readonly string[]): ResolvConf {
  const servers = host.servers.filter((server) => !isLoopback(server));
  return { ...host, servers: servers.length > 0 ? servers : [...clusterDNS] };
}

type DnsType = 'none' | 'cluster' | 'host';

function dnsType(pod: Pod): DnsType {
  const hostNetwork = pod.spec?.hostNetwork === true;
  switch (pod.spec?.dnsPolicy) {
    case 'None':
      return 'none';
    case 'ClusterFirstWithHostNet':
      return 'cluster';
    case 'Default':
      return 'host';
    default:
      // ClusterFirst (the default); host-network pods fall back to the node's resolver.
      return hostNetwork ? 'host' : 'cluster';
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** dnsConfig options override same-named ones; an option without value is just its name. */
function mergeOptions(
  existing: readonly string[],
  extra: readonly { name?: string; value?: string }[],
): string[] {
  const options = new Map<string, string>();
  for (const option of existing) {
    const colon = option.indexOf(':');
    if (colon >= 0) options.set(option.slice(0, colon), option.slice(colon + 1));
    else options.set(option, '');
  }
  for (const option of extra) options.set(option.name ?? '', option.value ?? '');
  return [...options].map(([name, value]) => (value ? `${name}:${value}` : name));
}

export interface PodDns {
  readonly config: DnsConfig;
  /** DNSConfigForming warnings (limits exceeded), as event messages. */
  readonly warnings: readonly string[];
}

function fitSearches(searches: string[], warnings: string[]): string[] {
  let exceeded = false;
  let fitted = searches;
  if (fitted.length > MAX_SEARCH_PATHS) {
    fitted = fitted.slice(0, MAX_SEARCH_PATHS);
    exceeded = true;
  }
  // Some resolvers (glibc 2.28) abort on a search path longer than 255 characters.
  const short = fitted.filter((search) => search.length <= MAX_SEARCH_PATH_LENGTH);
  if (short.length !== fitted.length) exceeded = true;
  fitted = short;
  let length = fitted.join(' ').length;
  while (length > MAX_SEARCH_LIST_CHARS && fitted.length > 0) {
    length -= fitted[fitted.length - 1]!.length + 1;
    fitted = fitted.slice(0, -1);
    exceeded = true;
  }
  if (exceeded) {
    warnings.push(
      `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${fitted.join(' ')}`,
    );
  }
  return fitted;
}

export function podDnsConfig(pod: Pod, settings: DnsSettings): PodDns {
  const type = dnsType(pod);
  let servers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  if (type === 'cluster' && settings.clusterDNS.length > 0) {
    const namespace = pod.metadata?.namespace ?? 'default';
    const domain = settings.clusterDomain;
    servers = [...settings.clusterDNS];
    searches = unique([`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...settings.host.searches]);
    options = [...DEFAULT_OPTIONS];
  } else if (type !== 'none') {
    // On the host network the node's resolver answers as it is; elsewhere loopback servers cannot.
    const host = pod.spec?.hostNetwork ? settings.host : podUsableHostDns(settings.host, settings.clusterDNS);
    servers = [...host.servers];
    searches = [...host.searches];
    options = [...host.options];
  }
  const extra = pod.spec?.dnsConfig;
  if (extra) {
    servers = unique([...servers, ...(extra.nameservers ?? [])]);
    searches = unique([...searches, ...(extra.searches ?? [])]);
    options = mergeOptions(options, extra.options ?? []);
  }
  const warnings: string[] = [];
  if (servers.length > MAX_NAMESERVERS) {
    servers = servers.slice(0, MAX_NAMESERVERS);
    warnings.push(
      `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${servers.join(' ')}`,
    );
  }
  searches = fitSearches(searches, warnings);
  return { config: { servers, searches, options }, warnings };
}
