import { isIPv4, isIPv6 } from 'node:net';

/**
 * The bytes an iPAddress subjectAltName carries: 4 for IPv4, 16 for IPv6. An IPv4-mapped IPv6
 * address (`::ffff:a.b.c.d`) becomes its 4 IPv4 bytes, as Go's crypto/x509 encodes it.
 */
export function ipAddressToBytes(address: string): Buffer {
  if (isIPv4(address)) {
    return Buffer.from(address.split('.').map(Number));
  }
  // Zones (`fe80::1%eth0`) name an interface of one host; certificates cannot carry them.
  if (!isIPv6(address) || address.includes('%')) {
    throw new Error(`invalid IP address: ${JSON.stringify(address)}`);
  }
  const bytes = ipv6ToBytes(address);
  const mappedPrefix = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);
  return bytes.subarray(0, 12).equals(mappedPrefix) ? bytes.subarray(12) : bytes;
}

/** Formats 4 or 16 address bytes: dotted IPv4, or RFC 5952 IPv6 (lowercase, longest zero run as `::`). */
export function ipAddressFromBytes(bytes: Uint8Array): string {
  if (bytes.length === 4) {
    return Array.from(bytes).join('.');
  }
  if (bytes.length !== 16) {
    throw new Error(`an IP address has 4 or 16 bytes, not ${bytes.length}`);
  }
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) {
    groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  }
  const run = longestZeroRun(groups);
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(':');
  if (run.length < 2) {
    return hex(groups);
  }
  return `${hex(groups.slice(0, run.start))}::${hex(groups.slice(run.start + run.length))}`;
}

/** The canonical text of an address, so that `::1` and `0:0::1` compare equal. */
export function canonicalIpAddress(address: string): string {
  return ipAddressFromBytes(ipAddressToBytes(address));
}

function ipv6ToBytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const headGroups = parseGroups(head);
  const tailGroups = tail === undefined ? [] : parseGroups(tail);
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...new Array<number>(zeros).fill(0), ...tailGroups];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of groups.entries()) {
    bytes.writeUInt16BE(group, index * 2);
  }
  return bytes;
}

/** Colon-separated hex groups; a trailing dotted IPv4 part stands for two groups. */
function parseGroups(text: string): number[] {
  if (text === '') {
    return [];
  }
  return text.split(':').flatMap((part) => {
    if (part.includes('.')) {
      const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    }
    return [Number.parseInt(part, 16)];
  });
}

function longestZeroRun(groups: number[]): { start: number; length: number } {
  let best = { start: 0, length: 0 };
  let start = -1;
  for (let i = 0; i <= groups.length; i++) {
    if (i < groups.length && groups[i] === 0) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start > best.length) {
      best = { start, length: i - start };
    }
    start = -1;
  }
  return best;
}
