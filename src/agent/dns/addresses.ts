// Addresses as DNS names carry them (CoreDNS's plugin/pkg/dnsutil and the kubernetes plugin's
// pod and endpoint names): reverse-zone names, the dashed form of pod and endpoint names, and one
// canonical text per address so that differently written IPv6 addresses compare equal.
import { isIPv4, isIPv6 } from 'node:net';

/** The 32 hex nibbles of an IPv6 address, or undefined when it is not one. */
function ipv6Nibbles(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address;
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two hex groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const octets = tail.split('.').map(Number);
    const high = ((octets[0]! << 8) | octets[1]!).toString(16);
    const low = ((octets[2]! << 8) | octets[3]!).toString(16);
    text = `${text.slice(0, lastColon + 1)}${high}:${low}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...tailGroups];
  return groups.map((group) => group.padStart(4, '0')).join('');
}

/** One text per address: dotted IPv4 as written, IPv6 as 32 lowercase nibbles; undefined when neither. */
export function canonicalAddress(address: string): string | undefined {
  if (isIPv4(address)) return address;
  return ipv6Nibbles(address.toLowerCase());
}

export function isIpv6Address(address: string): boolean {
  return isIPv6(address);
}

/** 10.0.0.1 → `1.0.0.10.in-addr.arpa`; IPv6 → its nibbles reversed under `ip6.arpa`. */
export function reverseName(address: string): string | undefined {
  if (isIPv4(address)) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  const nibbles = ipv6Nibbles(address.toLowerCase());
  return nibbles && `${[...nibbles].reverse().join('.')}.ip6.arpa`;
}

/**
 * The canonical address (see canonicalAddress) a reverse-zone name (lowercase, no trailing dot) stands for; undefined
 * when the name is not a whole address in `in-addr.arpa` or `ip6.arpa`.
 */
export function addressOfReverseName(name: string): string | undefined {
  if (name.endsWith('.in-addr.arpa')) {
    const labels = name.slice(0, -'.in-addr.arpa'.length).split('.');
    if (labels.length !== 4 || labels.some((label) => !/^(0|[1-9]\d{0,2})$/.test(label))) return undefined;
    const address = labels.reverse().join('.');
    return isIPv4(address) ? address : undefined;
  }
  if (name.endsWith('.ip6.arpa')) {
    const labels = name.slice(0, -'.ip6.arpa'.length).split('.');
    if (labels.length !== 32 || labels.some((label) => !/^[0-9a-f]$/.test(label))) return undefined;
    return labels.reverse().join('');
  }
  return undefined;
}

/** The name an address takes as a pod or endpoint label: 10.244.1.5 → `10-244-1-5`, fd00::1 → `fd00--1`. */
export function dashedAddress(address: string): string {
  return address.replaceAll(isIPv4(address) ? '.' : ':', '-');
}

/**
 * The address a dashed label names, as CoreDNS reads pod names: three dashes and no `--` make
 * an IPv4 address, anything else is tried as IPv6. Undefined when the result is no address.
 */
export function addressOfDashedLabel(label: string): string | undefined {
  const dashes = label.split('-').length - 1;
  const address =
    dashes === 3 && !label.includes('--') ? label.replaceAll('-', '.') : label.replaceAll('-', ':');
  return isIPv4(address) || isIPv6(address) ? address : undefined;
}
