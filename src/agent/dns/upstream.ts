// Forwarding to the node's own resolvers (CoreDNS's `forward . /etc/resolv.conf`): a query goes
// over UDP from a fresh socket (a random source port, so a forged answer must guess it), and
// again over TCP when the answer comes back truncated. Servers are tried in order.
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';

const DEFAULT_TIMEOUT_MS = 2_000;
const DNS_PORT = 53;
const TC_FLAG = 0x0200;

export interface UpstreamServer {
  readonly host: string;
  readonly port: number;
}

/** `nameserver` entries as upstream servers (`host` or `host:port` for tests). */
export function upstreamServers(nameservers: readonly string[]): UpstreamServer[] {
  return nameservers.map((server) => {
    const match = /^([\d.]+):(\d+)$/.exec(server);
    return match ? { host: match[1]!, port: Number(match[2]) } : { host: server, port: DNS_PORT };
  });
}

function queryUdp(server: UpstreamServer, raw: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
    const id = raw.readUInt16BE(0);
    const timer = setTimeout(
      () => finish(new Error(`no answer from ${server.host} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    function finish(error: Error | undefined, answer?: Buffer) {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(answer!);
    }
    socket.on('error', (error) => finish(error));
    socket.on('message', (message, remote) => {
      // Only the server asked, with the query's id, may answer.
      if (remote.address !== server.host || message.length < 12 || message.readUInt16BE(0) !== id) return;
      finish(undefined, message);
    });
    socket.send(raw, server.port, server.host, (error) => {
      if (error) finish(error);
    });
  });
}

export function queryTcp(server: UpstreamServer, raw: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(
      () => finish(new Error(`no answer from ${server.host} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    function finish(error: Error | undefined, answer?: Buffer) {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    }
    socket.on('error', (error) => finish(error));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(raw.length);
      socket.write(Buffer.concat([length, raw]));
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const length = received.readUInt16BE(0);
      if (received.length >= 2 + length) finish(undefined, received.subarray(2, 2 + length));
    });
    socket.on('end', () => finish(new Error(`${server.host} closed the connection before answering`)));
  });
}

export class Upstream {
  constructor(
    private readonly servers: readonly UpstreamServer[],
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  get configured(): boolean {
    return this.servers.length > 0;
  }

  /** The first answer of the servers, in order; rejects when none answers. */
  async forward(raw: Buffer): Promise<Buffer> {
    let lastError: unknown = new Error('no upstream nameserver configured');
    for (const server of this.servers) {
      try {
        const answer = await queryUdp(server, raw, this.timeoutMs);
        if ((answer.readUInt16BE(2) & TC_FLAG) === 0) return answer;
        return await queryTcp(server, raw, this.timeoutMs);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
}
