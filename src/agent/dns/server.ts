// The DNS server's sockets (CoreDNS's `dns://` server): UDP datagrams and TCP connections
// carrying length-prefixed messages (RFC 1035 4.2.2, several per connection, answered as they
// complete), on one address and port. A message that cannot be handled is dropped; the server
// itself never stops for one.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, isIPv6, type Server, type Socket } from 'node:net';
import type { DnsHandler } from './handler.js';

/** An idle TCP connection is closed after this long (CoreDNS's read timeout is 2 s on TCP; clients reconnect). */
const TCP_IDLE_TIMEOUT_MS = 10_000;
const MAX_TCP_BUFFER = 2 + 65535;
const UDP_BUFFER_BYTES = 4 * 1024 * 1024;

export interface DnsServerOptions {
  readonly host: string;
  /** 53; 0 picks a free port (tests). */
  readonly port: number;
  readonly handler: DnsHandler;
  readonly log?: (message: string) => void;
}

export class DnsServer {
  private udp: UdpSocket | undefined;
  private tcp: Server | undefined;
  private readonly connections = new Set<Socket>();

  constructor(private readonly options: DnsServerOptions) {}

  /** The UDP port bound (the TCP one is the same). */
  get port(): number {
    return this.udp?.address().port ?? 0;
  }

  async start(): Promise<void> {
    const { host } = this.options;
    const udp = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', reuseAddr: false });
    this.udp = udp;
    udp.on('message', (message, remote) => {
      this.options.handler.handle(message, 'udp', remote.family === 'IPv6' ? 2 : 1).then(
        (response) => {
          if (response) udp.send(response, remote.port, remote.address);
        },
        (error: unknown) => this.options.log?.(`dns: query failed: ${String(error)}`),
      );
    });
    udp.on('error', (error) => this.options.log?.(`dns: udp socket: ${error.message}`));
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(this.options.port, host, () => {
        udp.off('error', reject);
        // Bursts from many pods at once must wait in the socket, not be dropped by the kernel
        // (the request is capped by net.core.rmem_max).
        try {
          udp.setRecvBufferSize(UDP_BUFFER_BYTES);
          udp.setSendBufferSize(UDP_BUFFER_BYTES);
        } catch {
          // The default buffers still serve.
        }
        resolve();
      });
    });
    const tcp = createServer((socket) => this.serveConnection(socket));
    this.tcp = tcp;
    tcp.on('error', (error) => this.options.log?.(`dns: tcp server: ${error.message}`));
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.port, host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
  }

  private serveConnection(socket: Socket): void {
    this.connections.add(socket);
    socket.setTimeout(TCP_IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        this.options.handler.handle(Buffer.from(message), 'tcp', socket.remoteFamily === 'IPv6' ? 2 : 1).then(
          (response) => {
            if (!response || socket.destroyed) return;
            const prefix = Buffer.alloc(2);
            prefix.writeUInt16BE(response.length);
            socket.write(Buffer.concat([prefix, response]));
          },
          (error: unknown) => this.options.log?.(`dns: query failed: ${String(error)}`),
        );
      }
      if (buffered.length > MAX_TCP_BUFFER) socket.destroy();
    });
  }

  async close(): Promise<void> {
    try {
      this.udp?.close();
    } catch {
      // Never bound, or closed already.
    }
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
  }
}
