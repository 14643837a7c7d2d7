// Where nodes/{name}/proxy goes, decided as upstream's node ResourceLocation decides it. The name
// may carry a port and a scheme (`node-1:10250`, `https:node-1:10250`); no port, or the node's
// kubelet port, means its kubelet over HTTPS with the apiserver's kubelet client certificate;
// another port is reached with the requested scheme (http by default) and no client certificate,
// and only on a global unicast address, so that a node cannot point the apiserver at services on
// the apiserver's own loopback.
import { lookup } from 'node:dns/promises';
import type { KubeObject } from '../../api/object.js';
import { goQuote } from '../../api/selectors/go-text.js';
import type { Node } from '../../api/types/core-v1.generated.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { isGlobalUnicastIp, parseIpSloppy } from '../registry/validation/ip.js';
import { badRequest } from '../status.js';
import { kubeletAddress } from './kubelet-connection.js';

export interface NodeProxyTarget {
  readonly scheme: '' | 'http' | 'https';
  readonly name: string;
  readonly port: string;
}

export interface NodeProxyLocation {
  /** `scheme://host:port`, IPv6 hosts in brackets. */
  readonly origin: string;
  /** The node's kubelet itself: reached with the apiserver's kubelet client certificate. */
  readonly kubelet: boolean;
}

/** utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port` (scheme http, https or empty). */
export function splitSchemeNamePort(id: string): NodeProxyTarget | undefined {
  const parts = id.split(':');
  if (parts.length > 3) return undefined;
  const [scheme, name, port] = parts.length === 3 ? parts : ['', parts[0]!, parts[1] ?? ''];
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme, name: name!, port: port! };
}

/** Upstream's isProxyableHostname: every address the name resolves to must be global unicast. */
async function checkProxyable(host: string): Promise<void> {
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOTFOUND' ? 'no such host' : (error as Error).message;
    throw badRequest(`lookup ${host}: ${why}`);
  }
  if (addresses.length === 0) throw badRequest('no addresses for hostname');
  for (const address of addresses) {
    const ip = parseIpSloppy(address);
    if (ip === undefined || !isGlobalUnicastIp(ip)) throw badRequest('address not allowed');
  }
}

/** The origin nodes/{id}/proxy forwards to; throws the Status upstream answers when there is none. */
export async function nodeProxyLocation(nodes: ResourceStore, id: string): Promise<NodeProxyLocation> {
  const target = splitSchemeNamePort(id);
  if (!target) throw badRequest(`invalid node request ${goQuote(id)}`);
  const node = (await nodes.get('', target.name)) as KubeObject as Node;
  const { host, port } = kubeletAddress(node);
  const hostPort = (p: string | number) => `${host.includes(':') ? `[${host}]` : host}:${p}`;
  if (target.port === '' || target.port === String(port)) {
    return { origin: `https://${hostPort(port)}`, kubelet: true };
  }
  // Only other ports are checked: the kubelet's address is the node's own report.
  await checkProxyable(host);
  return { origin: `${target.scheme || 'http'}://${hostPort(target.port)}`, kubelet: false };
}
