// IP and CIDR checks as Kubernetes makes them (k8s.io/apimachinery/pkg/util/validation/ip.go):
// a lenient parse like Go's net.ParseIP with leading zeros allowed in IPv4, then the strict
// rules of Go's net/netip, then the canonical-form rule.

import { goQuote } from '../../../api/selectors/go-text.js';
import { type FieldError, fieldInvalid } from '../../../api/selectors/index.js';

/** A parsed address: 16 bytes, with IPv4 stored IPv4-mapped, as Go's net.IP does. */
export interface ParsedIp {
  bytes: Uint8Array;
  /** Written as dotted IPv4 (not as IPv6 text). */
  isV4Text: boolean;
  /** Some IPv4 octet had a leading zero (netip rejects these). */
  leadingZeros: boolean;
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseV4(text: string): { octets: number[]; leadingZeros: boolean } | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  let leadingZeros = false;
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    if (part.length > 1 && part[0] === '0') leadingZeros = true;
    octets.push(value);
  }
  return { octets, leadingZeros };
}

function parseV6(text: string): { bytes: Uint8Array; leadingZeros: boolean } | undefined {
  let leadingZeros = false;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string, allowV4Tail: boolean): number[] | undefined => {
    if (part === '') return [];
    const pieces = part.split(':');
    const groups: number[] = [];
    for (const [index, piece] of pieces.entries()) {
      if (allowV4Tail && index === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseV4(piece);
        if (v4 === undefined) return undefined;
        leadingZeros ||= v4.leadingZeros;
        groups.push((v4.octets[0]! << 8) | v4.octets[1]!, (v4.octets[2]! << 8) | v4.octets[3]!);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
      groups.push(Number.parseInt(piece, 16));
    }
    return groups;
  };
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 1 ? zeros !== 0 : zeros < 1) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? zeros : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return { bytes, leadingZeros };
}

/** Go's netutils.ParseIPSloppy: undefined when the text is not an IP address. */
export function parseIpSloppy(text: string): ParsedIp | undefined {
  const v4 = parseV4(text);
  if (v4 !== undefined) {
    return {
      bytes: new Uint8Array([...V4_MAPPED_PREFIX, ...v4.octets]),
      isV4Text: true,
      leadingZeros: v4.leadingZeros,
    };
  }
  if (!text.includes(':')) return undefined;
  const v6 = parseV6(text);
  return v6 === undefined ? undefined : { bytes: v6.bytes, isV4Text: false, leadingZeros: v6.leadingZeros };
}

/** True for IPv4 addresses, written either way (Go's To4() != nil). */
export function isIPv4(ip: ParsedIp): boolean {
  return V4_MAPPED_PREFIX.every((byte, index) => ip.bytes[index] === byte);
}

/** IPv6 text that denotes an IPv4-mapped address (netip's Is4In6). */
function is4In6(ip: ParsedIp): boolean {
  return !ip.isV4Text && isIPv4(ip);
}

/** Go's net.IP.String(): dotted IPv4, or RFC 5952 IPv6. */
export function formatIp(bytes: Uint8Array): string {
  if (V4_MAPPED_PREFIX.every((byte, index) => bytes[index] === byte)) {
    return Array.from(bytes.subarray(12)).join('.');
  }
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(':');
  if (bestLength < 2) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/**
 * Kubernetes 1.33 leaves StrictIPCIDRValidation off: IP and CIDR fields only have to parse (leading
 * zeros, IPv4-mapped and non-canonical forms are accepted, with warnings).
 */
export const STRICT_IP_CIDR_VALIDATION = false;

/** IsValidIPForLegacyField as 1.33 calls it: strict rules only when STRICT_IP_CIDR_VALIDATION is on. */
export function validateIp(path: string, value: string, strict = STRICT_IP_CIDR_VALIDATION): FieldError[] {
  const ip = parseIpSloppy(value);
  if (ip === undefined) {
    return [fieldInvalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
  }
  if (!strict) return [];
  const errors: FieldError[] = [];
  if (ip.leadingZeros) errors.push(fieldInvalid(path, value, 'must not have leading 0s'));
  if (is4In6(ip)) errors.push(fieldInvalid(path, value, 'must not be an IPv4-mapped IPv6 address'));
  if (errors.length > 0) return errors;
  const canonical = formatIp(ip.bytes);
  if (value !== canonical) {
    errors.push(fieldInvalid(path, value, `must be in canonical form (${goQuote(canonical)})`));
  }
  return errors;
}

export interface ParsedCidr {
  ip: ParsedIp;
  prefixLength: number;
  /** The masked network address. */
  network: Uint8Array;
  /** Written with an IPv4 address. */
  v4: boolean;
}

/** Go's netutils.ParseCIDRSloppy. */
export function parseCidrSloppy(text: string): (ParsedCidr & { prefixLeadingZeros: boolean }) | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIpSloppy(text.slice(0, slash));
  const lengthText = text.slice(slash + 1);
  if (ip === undefined || !/^[0-9]+$/.test(lengthText) || lengthText.length > 3) return undefined;
  const v4 = ip.isV4Text;
  const prefixLength = Number(lengthText);
  if (prefixLength > (v4 ? 32 : 128)) return undefined;
  const bits = v4 ? prefixLength + 96 : prefixLength;
  const network = new Uint8Array(ip.bytes);
  for (let bit = bits; bit < 128; bit++) network[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return {
    ip,
    prefixLength,
    network,
    v4,
    prefixLeadingZeros: lengthText.length > 1 && lengthText[0] === '0',
  };
}

/** IsValidCIDRForLegacyField as 1.33 calls it (see STRICT_IP_CIDR_VALIDATION). */
export function validateCidr(path: string, value: string, strict = STRICT_IP_CIDR_VALIDATION): FieldError[] {
  const cidr = parseCidrSloppy(value);
  if (cidr === undefined) {
    return [fieldInvalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
  }
  if (!strict) return [];
  if (cidr.ip.leadingZeros || cidr.prefixLeadingZeros) {
    return [fieldInvalid(path, value, 'must not have leading 0s in IP or prefix length')];
  }
  if (is4In6(cidr.ip)) return [fieldInvalid(path, value, 'must not have an IPv4-mapped IPv6 address')];
  if (!cidr.network.every((byte, index) => byte === cidr.ip.bytes[index])) {
    return [fieldInvalid(path, value, 'must not have bits set beyond the prefix length')];
  }
  const canonical = `${formatIp(cidr.network)}/${cidr.prefixLength}`;
  if (value !== canonical) {
    return [fieldInvalid(path, value, `must be in canonical form (${goQuote(canonical)})`)];
  }
  return [];
}

/** The address ranges Go's net.IP methods name (IsUnspecified, IsLoopback, …), for v4 and v6. */
export function isUnspecifiedIp(ip: ParsedIp): boolean {
  return (isIPv4(ip) ? ip.bytes.subarray(12) : ip.bytes).every((x) => x === 0);
}

export function isLoopbackIp(ip: ParsedIp): boolean {
  const b = ip.bytes;
  return isIPv4(ip) ? b[12] === 127 : b.subarray(0, 15).every((x) => x === 0) && b[15] === 1;
}

export function isLinkLocalUnicastIp(ip: ParsedIp): boolean {
  const b = ip.bytes;
  return isIPv4(ip) ? b[12] === 169 && b[13] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
}

export function isLinkLocalMulticastIp(ip: ParsedIp): boolean {
  const b = ip.bytes;
  return isIPv4(ip) ? b[12] === 224 && b[13] === 0 && b[14] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
}

/** Go's net.IP.IsGlobalUnicast: not unspecified, loopback, multicast, link-local or broadcast. */
export function isGlobalUnicastIp(ip: ParsedIp): boolean {
  const b = ip.bytes;
  const multicast = isIPv4(ip) ? b[12]! >= 224 : b[0] === 0xff;
  const broadcast = isIPv4(ip) && b.subarray(12).every((x) => x === 255);
  return !(isUnspecifiedIp(ip) || isLoopbackIp(ip) || isLinkLocalUnicastIp(ip) || multicast || broadcast);
}

/** validation.ValidateNonSpecialIP: no unspecified, loopback or link-local addresses. */
export function validateNonSpecialIp(path: string, value: string): FieldError[] {
  const ip = parseIpSloppy(value);
  if (ip === undefined) return [fieldInvalid(path, value, 'must be a valid IP address')];
  const errors: FieldError[] = [];
  if (isUnspecifiedIp(ip)) errors.push(fieldInvalid(path, value, `may not be unspecified (${value})`));
  if (isLoopbackIp(ip))
    errors.push(fieldInvalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (isLinkLocalUnicastIp(ip)) {
    errors.push(fieldInvalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (isLinkLocalMulticastIp(ip)) {
    errors.push(
      fieldInvalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'),
    );
  }
  return errors;
}

/** netutils.IsIPv6String. */
export function isIPv6String(value: string): boolean {
  const ip = parseIpSloppy(value);
  return ip !== undefined && !isIPv4(ip);
}
