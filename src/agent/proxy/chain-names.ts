// kube-proxy's iptables chain names (pkg/proxy/iptables/proxier.go): the fixed chains, and the
// per-service chains named by a hash of the service port's name and protocol, so names survive
// restarts and every node computes the same ones.
import { createHash } from 'node:crypto';

export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';
export const KUBE_FIREWALL = 'KUBE-FIREWALL';

const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-SEP-', 'KUBE-FW-', 'KUBE-EXT-'] as const;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 of the first bytes, enough for `length` characters (Go's StdEncoding). */
function base32Prefix(bytes: Buffer, length: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
      if (out.length === length) return out;
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/**
 * Names hashed lately: every sync names the same chains again, and SHA-256 of 10,000 endpoints
 * was most of a sync's own time. Two generations of at most MEMO_LIMIT entries bound the memory.
 */
const MEMO_LIMIT = 50_000;
let recentHashes = new Map<string, string>();
let olderHashes = new Map<string, string>();

function hash16(text: string): string {
  let hash = recentHashes.get(text);
  if (hash !== undefined) return hash;
  hash = olderHashes.get(text) ?? base32Prefix(createHash('sha256').update(text).digest(), 16);
  if (recentHashes.size >= MEMO_LIMIT) {
    olderHashes = recentHashes;
    recentHashes = new Map();
  }
  recentHashes.set(text, hash);
  return hash;
}

/** `<namespace>/<name>:<port name>`, or without `:` for an unnamed port (proxy.ServicePortName). */
export function servicePortNameString(namespace: string, name: string, portName: string): string {
  return `${namespace}/${name}${portName ? `:${portName}` : ''}`;
}

/** The protocol as chain names and iptables matches spell it: `tcp`, `udp`, `sctp`. */
export type LowerProtocol = 'tcp' | 'udp' | 'sctp';

export function clusterPolicyChain(portName: string, protocol: LowerProtocol): string {
  return `KUBE-SVC-${hash16(portName + protocol)}`;
}

export function localPolicyChain(portName: string, protocol: LowerProtocol): string {
  return `KUBE-SVL-${hash16(portName + protocol)}`;
}

export function firewallChain(portName: string, protocol: LowerProtocol): string {
  return `KUBE-FW-${hash16(portName + protocol)}`;
}

export function externalChain(portName: string, protocol: LowerProtocol): string {
  return `KUBE-EXT-${hash16(portName + protocol)}`;
}

/** `endpoint` is `ip:port`. */
export function endpointChain(portName: string, protocol: LowerProtocol, endpoint: string): string {
  return `KUBE-SEP-${hash16(portName + protocol + endpoint)}`;
}

/** Whether a chain is one of the per-service chains the proxy creates and deletes. */
export function isServiceChain(chain: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((prefix) => chain.startsWith(prefix));
}
