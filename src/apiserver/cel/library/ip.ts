// Kubernetes' IP and CIDR functions (k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go, 1.30+):
// ip(), isIP(), ip.isCanonical(), the address classes, cidr(), isCIDR() and containment. Like
// Go's netip, IPv4 parts take no leading zeros, and IPv4-mapped IPv6 addresses and zones are refused.
import { isIPv4, isIPv6 } from 'node:net';
import type { Environment } from '@marcbachmann/cel-js';

/** An IP address as a CEL value (`net.IP`): 4 or 16 bytes. */
export class CelIP {
  constructor(readonly bytes: Uint8Array) {}

  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }

  toString(): string {
    if (this.family === 4) return [...this.bytes].join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((this.bytes[i]! << 8) | this.bytes[i + 1]!);
    // RFC 5952: the longest run of two or more zero groups becomes `::`.
    let bestStart = -1;
    let bestLength = 1;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
      i = j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (bestStart < 0) return hex.join(':');
    return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
  }
}

/** A CIDR as a CEL value (`net.CIDR`): an address and a prefix length. */
export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly prefixLength: number,
  ) {}

  toString(): string {
    return `${this.ip.toString()}/${this.prefixLength}`;
  }

  masked(): CelCIDR {
    const bytes = new Uint8Array(this.ip.bytes);
    for (let bit = this.prefixLength; bit < bytes.length * 8; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
    return new CelCIDR(new CelIP(bytes), this.prefixLength);
  }

  contains(ip: CelIP): boolean {
    if (ip.family !== this.ip.family) return false;
    for (let bit = 0; bit < this.prefixLength; bit++) {
      const mask = 0x80 >> (bit & 7);
      if ((ip.bytes[bit >> 3]! & mask) !== (this.ip.bytes[bit >> 3]! & mask)) return false;
    }
    return true;
  }
}

function parseIPv4(text: string): Uint8Array | undefined {
  if (!isIPv4(text)) return undefined;
  const parts = text.split('.');
  if (parts.some((part) => part.length > 1 && part.startsWith('0'))) return undefined;
  return Uint8Array.from(parts.map(Number));
}

/** The address `text` names, or undefined (mapped IPv6 addresses and zones included). */
export function parseIP(text: string): CelIP | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return new CelIP(v4);
  if (text.includes('%') || !isIPv6(text)) return undefined;
  let head = text;
  let tail = '';
  const doubleColon = text.indexOf('::');
  if (doubleColon >= 0) [head, tail] = [text.slice(0, doubleColon), text.slice(doubleColon + 2)];
  const toGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const v4Bytes = parseIPv4(piece);
        if (v4Bytes === undefined) return undefined;
        groups.push((v4Bytes[0]! << 8) | v4Bytes[1]!, (v4Bytes[2]! << 8) | v4Bytes[3]!);
      } else groups.push(Number.parseInt(piece, 16));
    }
    return groups;
  };
  const first = toGroups(head);
  const last = toGroups(tail);
  if (first === undefined || last === undefined) return undefined;
  const groups =
    doubleColon >= 0 ? [...first, ...new Array(8 - first.length - last.length).fill(0), ...last] : first;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  // IPv4-mapped IPv6 (::ffff:a.b.c.d) is refused, as Kubernetes does.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return undefined;
  return new CelIP(bytes);
}

export function parseCIDR(text: string): CelCIDR | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const prefix = text.slice(slash + 1);
  if (ip === undefined || !/^(0|[1-9][0-9]*)$/.test(prefix)) return undefined;
  const length = Number(prefix);
  if (length > ip.bytes.length * 8) return undefined;
  return new CelCIDR(ip, length);
}

function ipOrThrow(text: string): CelIP {
  const ip = parseIP(text);
  if (ip === undefined)
    throw new Error(`IP Address ${JSON.stringify(text)} parse error during conversion from string`);
  return ip;
}

function cidrOrThrow(text: string): CelCIDR {
  const cidr = parseCIDR(text);
  if (cidr === undefined) throw new Error(`network address parse error during conversion from string`);
  return cidr;
}

/** The `ip` namespace of `ip.isCanonical(...)`. */
class IPNamespace {}

function isLinkLocalUnicast(ip: CelIP): boolean {
  const b = ip.bytes;
  return ip.family === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
}

function isLinkLocalMulticast(ip: CelIP): boolean {
  const b = ip.bytes;
  return ip.family === 4
    ? b[0] === 224 && b[1] === 0 && b[2] === 0
    : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
}

function isLoopback(ip: CelIP): boolean {
  const b = ip.bytes;
  return ip.family === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
}

function isUnspecified(ip: CelIP): boolean {
  return ip.bytes.every((x) => x === 0);
}

function isGlobalUnicast(ip: CelIP): boolean {
  const b = ip.bytes;
  if (ip.family === 4 && b.every((x) => x === 255)) return false;
  const multicast = ip.family === 4 ? b[0]! >= 224 && b[0]! < 240 : b[0] === 0xff;
  return !isUnspecified(ip) && !isLoopback(ip) && !multicast && !isLinkLocalUnicast(ip);
}

export function registerIP(env: Environment): void {
  const IP = 'net.IP';
  const CIDR = 'net.CIDR';
  env.registerType(IP, CelIP);
  env.registerType(CIDR, CelCIDR);
  env.registerType('IPNamespace', IPNamespace);
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());
  env.registerFunction(`ip(string): ${IP}`, ipOrThrow);
  env.registerFunction('isIP(string): bool', (text: string) => parseIP(text) !== undefined);
  env.registerFunction('IPNamespace.isCanonical(string): bool', (_ns: IPNamespace, text: string) => {
    return ipOrThrow(text).toString() === text;
  });
  env.registerFunction(`string(${IP}): string`, (ip: CelIP) => ip.toString());
  env.registerFunction(`${IP}.family(): int`, (ip: CelIP) => BigInt(ip.family));
  env.registerFunction(`${IP}.isUnspecified(): bool`, isUnspecified);
  env.registerFunction(`${IP}.isLoopback(): bool`, isLoopback);
  env.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, isLinkLocalMulticast);
  env.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, isLinkLocalUnicast);
  env.registerFunction(`${IP}.isGlobalUnicast(): bool`, isGlobalUnicast);
  env.registerOperator(`${IP} == ${IP}`, (a: CelIP, b: CelIP) => a.toString() === b.toString());

  env.registerFunction(`cidr(string): ${CIDR}`, cidrOrThrow);
  env.registerFunction('isCIDR(string): bool', (text: string) => parseCIDR(text) !== undefined);
  env.registerFunction(`string(${CIDR}): string`, (cidr: CelCIDR) => cidr.toString());
  env.registerFunction(`${CIDR}.containsIP(${IP}): bool`, (cidr: CelCIDR, ip: CelIP) => cidr.contains(ip));
  env.registerFunction(`${CIDR}.containsIP(string): bool`, (cidr: CelCIDR, text: string) =>
    cidr.contains(ipOrThrow(text)),
  );
  env.registerFunction(
    `${CIDR}.containsCIDR(${CIDR}): bool`,
    (cidr: CelCIDR, other: CelCIDR) => other.prefixLength >= cidr.prefixLength && cidr.contains(other.ip),
  );
  env.registerFunction(`${CIDR}.containsCIDR(string): bool`, (cidr: CelCIDR, text: string) => {
    const other = cidrOrThrow(text);
    return other.prefixLength >= cidr.prefixLength && cidr.contains(other.ip);
  });
  env.registerFunction(`${CIDR}.ip(): ${IP}`, (cidr: CelCIDR) => cidr.ip);
  env.registerFunction(`${CIDR}.masked(): ${CIDR}`, (cidr: CelCIDR) => cidr.masked());
  env.registerFunction(`${CIDR}.prefixLength(): int`, (cidr: CelCIDR) => BigInt(cidr.prefixLength));
  env.registerOperator(`${CIDR} == ${CIDR}`, (a: CelCIDR, b: CelCIDR) => a.toString() === b.toString());
}
