// A pod's hostname and domain, and the /etc/hosts file the kubelet writes for it
// (GeneratePodHostNameAndDomain, managedHostsFileContent).
import type { HostAlias, Pod } from '../../../api/types/core-v1.generated.js';

const HOSTNAME_MAX_LENGTH = 63;
const FQDN_MAX_LENGTH = 64;

export interface PodHostname {
  readonly hostname: string;
  /** `<subdomain>.<namespace>.svc.<cluster domain>`, or '' without a subdomain. */
  readonly domain: string;
}

export function podHostname(pod: Pod, clusterDomain: string): PodHostname {
  let hostname = pod.spec?.hostname || pod.metadata?.name || '';
  if (hostname.length > HOSTNAME_MAX_LENGTH)
    hostname = hostname.slice(0, HOSTNAME_MAX_LENGTH).replace(/[-.]+$/, '');
  const subdomain = pod.spec?.subdomain;
  const domain = subdomain ? `${subdomain}.${pod.metadata?.namespace ?? ''}.svc.${clusterDomain}` : '';
  return { hostname, domain };
}

/** The kernel's node name for the sandbox: the FQDN with setHostnameAsFQDN (at most 64 characters). */
export function kernelHostname(pod: Pod, name: PodHostname): string {
  if (!name.domain || pod.spec?.setHostnameAsFQDN !== true) return name.hostname;
  const fqdn = `${name.hostname}.${name.domain}`;
  if (fqdn.length > FQDN_MAX_LENGTH) {
    throw new Error(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (${FQDN_MAX_LENGTH} characters is the max, ${fqdn.length} characters requested)`,
    );
  }
  return fqdn;
}

function hostAliasLines(aliases: readonly HostAlias[] | undefined): string {
  if (!aliases?.length) return '';
  const lines = aliases.map((alias) => `${alias.ip}\t${(alias.hostnames ?? []).join('\t')}\n`);
  return `\n# Entries added by HostAliases.\n${lines.join('')}`;
}

/** /etc/hosts of a pod with its own network: localhost, the pod's addresses, host aliases. */
export function managedHostsFile(
  podIPs: readonly string[],
  name: PodHostname,
  aliases?: readonly HostAlias[],
): string {
  let text =
    '# Kubernetes-managed hosts file.\n' +
    '127.0.0.1\tlocalhost\n' +
    '::1\tlocalhost ip6-localhost ip6-loopback\n' +
    'fe00::0\tip6-localnet\n' +
    'fe00::0\tip6-mcastprefix\n' +
    'fe00::1\tip6-allnodes\n' +
    'fe00::2\tip6-allrouters\n';
  for (const ip of podIPs) {
    text += name.domain
      ? `${ip}\t${name.hostname}.${name.domain}\t${name.hostname}\n`
      : `${ip}\t${name.hostname}\n`;
  }
  return text + hostAliasLines(aliases);
}

/** /etc/hosts of a host-network pod: the node's own file, plus host aliases. */
export function hostNetworkHostsFile(nodeHosts: string, aliases?: readonly HostAlias[]): string {
  return `# Kubernetes-managed hosts file (host network).\n${nodeHosts}${hostAliasLines(aliases)}`;
}
