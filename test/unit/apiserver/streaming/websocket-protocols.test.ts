// Which WebSocket requests to pods/exec, attach, portforward and log the apiserver serves itself
// (as upstream's translating handlers pick them) and which go on to the node.
import { describe, expect, it } from 'vitest';
import { logStreamProtocol } from '../../../../src/apiserver/streaming/log-websocket.js';
import {
  isUpgradeRequest,
  isWebSocketRequest,
  offeredProtocols,
  webSocketRoute,
} from '../../../../src/apiserver/streaming/websocket-protocols.js';

describe('WebSocket routes of the streaming subresources', () => {
  it('translates exec and attach when v5.channel.k8s.io is offered, else passes them on', () => {
    const clientNode = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io', 'channel.k8s.io'];
    expect(webSocketRoute('exec', clientNode)).toEqual({ kind: 'translate-exec' });
    expect(webSocketRoute('attach', ['v5.channel.k8s.io'])).toEqual({ kind: 'translate-exec' });
    expect(webSocketRoute('exec', ['v4.channel.k8s.io', 'base64.channel.k8s.io'])).toEqual({
      kind: 'pass-through',
    });
  });

  it("unwraps kubectl's SPDY tunnel for port forwarding, passes channel protocols on", () => {
    expect(webSocketRoute('portforward', ['SPDY/3.1+portforward.k8s.io'])).toEqual({
      kind: 'tunnel-spdy',
      protocol: 'SPDY/3.1+portforward.k8s.io',
      spdyProtocol: 'portforward.k8s.io',
    });
    expect(webSocketRoute('portforward', ['v5.channel.k8s.io', 'v4.channel.k8s.io'])).toEqual({
      kind: 'pass-through',
    });
  });

  it('reads the handshake headers', () => {
    const headers = {
      connection: 'keep-alive, Upgrade',
      upgrade: 'WebSocket',
      'sec-websocket-protocol': 'v5.channel.k8s.io, v4.channel.k8s.io',
    };
    expect(isUpgradeRequest(headers)).toBe(true);
    expect(isWebSocketRequest(headers)).toBe(true);
    expect(offeredProtocols(headers)).toEqual(['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    expect(isUpgradeRequest({ connection: 'close' })).toBe(false);
  });

  it("serves logs with wsstream.Reader's protocols", () => {
    expect(logStreamProtocol([])).toBe('');
    expect(logStreamProtocol(['base64.binary.k8s.io'])).toBe('base64.binary.k8s.io');
    expect(logStreamProtocol(['channel.k8s.io', 'binary.k8s.io'])).toBe('binary.k8s.io');
    expect(logStreamProtocol(['v4.channel.k8s.io'])).toBeUndefined();
  });
});
