// The WebSocket subprotocols of the streaming subresources (apimachinery's wsstream and
// client-go's remotecommand and portforward constants), and which of them the apiserver serves
// itself rather than passing the upgrade on to the kubelet.
import type { IncomingHttpHeaders } from 'node:http';

/** KEP-4006's exec/attach protocol: v4 plus the CLOSE signal; translated to SPDY towards the kubelet. */
export const V5_CHANNEL_PROTOCOL = 'v5.channel.k8s.io';
/** The channel (stream index) byte of v5's CLOSE signal; its payload is the closed channel. */
export const CLOSE_CHANNEL = 255;
/** kubectl 1.31+'s port forwarding: SPDY frames carried in binary WebSocket messages. */
export const SPDY_TUNNELING_PREFIX = 'SPDY/3.1+';
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** The remotecommand protocol spoken over SPDY to the kubelet (stdin/out/err, error as Status, resize). */
export const SPDY_EXEC_PROTOCOL = 'v4.channel.k8s.io';

/** Channels of the remotecommand protocols. */
export const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4 } as const;

/** httpstream.IsUpgradeRequest: a Connection header naming Upgrade. */
export function isUpgradeRequest(headers: IncomingHttpHeaders): boolean {
  return String(headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .some((token) => token.trim() === 'upgrade');
}

/** An `Upgrade: websocket` request. */
export function isWebSocketRequest(headers: IncomingHttpHeaders): boolean {
  return String(headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** The subprotocols the client offers, in its order. */
export function offeredProtocols(headers: IncomingHttpHeaders): string[] {
  const value = headers['sec-websocket-protocol'];
  return (Array.isArray(value) ? value.join(',') : (value ?? ''))
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** How a WebSocket request to pods/<subresource> is served (upstream's translating handlers). */
export type WebSocketRoute =
  | { readonly kind: 'translate-exec' }
  | { readonly kind: 'tunnel-spdy'; readonly protocol: string; readonly spdyProtocol: string }
  | { readonly kind: 'pass-through' };

export function webSocketRoute(subresource: string, offered: readonly string[]): WebSocketRoute {
  if (subresource === 'portforward') {
    const tunnel = offered.find((p) => p.startsWith(SPDY_TUNNELING_PREFIX));
    if (tunnel) {
      return {
        kind: 'tunnel-spdy',
        protocol: tunnel,
        spdyProtocol: tunnel.slice(SPDY_TUNNELING_PREFIX.length),
      };
    }
    return { kind: 'pass-through' };
  }
  return offered.includes(V5_CHANNEL_PROTOCOL) ? { kind: 'translate-exec' } : { kind: 'pass-through' };
}
