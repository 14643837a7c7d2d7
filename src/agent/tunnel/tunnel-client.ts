// The node's end of its tunnel to the control plane (konnectivity-agent's role): an HTTP/2 POST
// to TUNNEL_PATH as the node's identity, kept open; over it the apiserver opens TCP streams, which
// this end dials inside the node's network — the kubelet's address and the node's pod CIDR only.
// A lost tunnel (the control plane restarted, the connection died: HTTP/2 pings notice) is
// reopened after a delay that doubles from 0.5 s up to 30 s.
import { type ClientHttp2Session, constants, connect as http2Connect } from 'node:http2';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import { TUNNEL_PATH } from '../../client/tunnel/frames.js';
import { keepAlive } from '../../client/tunnel/keepalive.js';
import { TunnelSession, type TunnelTarget } from '../../client/tunnel/tunnel-session.js';
import { Backoff } from '../kubelet/backoff.js';

export interface TunnelClientOptions {
  /** `https://host:port` of the apiserver. */
  readonly server: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  /** The node's own address: any of its ports may be reached. */
  readonly nodeIP: string;
  /** The node's pod CIDR(s), read when a stream opens (node IPAM may assign it late). */
  readonly podCIDRs: () => readonly string[];
  /**
   * Whether a target is a TCP port of a LoadBalancer service's address: the apiserver reaches
   * those for hosts that cannot route to them (load-balancer-host-ports.ts).
   */
  readonly loadBalancerTarget?: (target: TunnelTarget) => boolean;
  /** Connects inside the node's network (tests stand in a network of their own). */
  readonly dial?: (target: TunnelTarget) => Promise<Duplex>;
  readonly pingIntervalMs?: number;
  readonly log?: (line: string) => void;
}

const INITIAL_RETRY_MS = 500;
const PING_INTERVAL_MS = 15_000;
const ANSWER_TIMEOUT_MS = 30_000;
const CARRIER_WINDOW_BYTES = 16 * 1024 * 1024;
const MAX_RETRY_MS = 30_000;

function dialTcp({ host, port }: TunnelTarget): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    // Half-open, so that the apiserver's end of a request does not end the answer.
    const socket = connect({ host, port, allowHalfOpen: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export class TunnelClient {
  private readonly backoff = new Backoff(INITIAL_RETRY_MS, MAX_RETRY_MS);
  private current?: { session: ClientHttp2Session; tunnel?: TunnelSession };
  /** Tunnels opened so far (tests watch reconnects). */
  connections = 0;

  constructor(private readonly options: TunnelClientOptions) {}

  /** Whether a target is inside this node's network. */
  allows(target: TunnelTarget): boolean {
    if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) return false;
    if (target.host === this.options.nodeIP) return true;
    if (this.options.loadBalancerTarget?.(target)) return true;
    const ip = parseIpv4(target.host);
    if (ip === undefined) return false;
    return this.options.podCIDRs().some((text) => {
      const cidr = parseIpv4Cidr(text);
      return cidr !== undefined && ipv4CidrContains(cidr, ip);
    });
  }

  /** Keeps the tunnel open until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.options.log ?? ((line: string) => console.log(line));
    const stop = () => {
      this.current?.tunnel?.close(new Error('agent stopping'));
      this.current?.session.destroy();
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      while (!signal.aborted) {
        const error = await this.connectOnce();
        if (signal.aborted) break;
        this.backoff.next('tunnel', Date.now());
        const delay = this.backoff.get('tunnel');
        log(`agent: tunnel to the control plane lost (${error.message}); reconnecting in ${delay} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(() => {
            signal.removeEventListener('abort', wake);
            resolve();
          }, delay);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  /** One tunnel: resolves with why it ended. */
  private connectOnce(): Promise<Error> {
    const { options } = this;
    return new Promise<Error>((resolve) => {
      let settled = false;
      const done = (error: Error) => {
        if (settled) return;
        settled = true;
        stopPings();
        clearTimeout(answerTimer);
        this.current?.tunnel?.close(error);
        session.destroy();
        this.current = undefined;
        resolve(error);
      };
      // Windows wider than HTTP/2's 64 KiB default: every stream into the node shares this one.
      const session = http2Connect(options.server, {
        ca: options.ca,
        cert: options.cert,
        key: options.key,
        settings: { initialWindowSize: CARRIER_WINDOW_BYTES },
      });
      session.once('connect', () => session.setLocalWindowSize(CARRIER_WINDOW_BYTES));
      this.current = { session };
      session.on('error', (error) => done(error));
      session.on('close', () => done(new Error('connection closed')));
      session.on('goaway', () => done(new Error('the control plane closed the connection')));
      // A dead peer (a killed control plane, a lost network) is noticed by pings, not by TCP.
      const stopPings = keepAlive(session, options.pingIntervalMs ?? PING_INTERVAL_MS, done);
      // A control plane that accepts the connection but never answers is given up too.
      const answerTimer = setTimeout(
        () => done(new Error('no answer to the tunnel request')),
        ANSWER_TIMEOUT_MS,
      );
      answerTimer.unref();
      const request = session.request(
        { [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: TUNNEL_PATH },
        { endStream: false },
      );
      request.on('error', (error) => done(error));
      request.once('response', (headers) => {
        clearTimeout(answerTimer);
        const status = Number(headers[constants.HTTP2_HEADER_STATUS]);
        if (status !== 200) {
          let body = '';
          request.setEncoding('utf8');
          request.on('data', (chunk: string) => {
            body += chunk;
          });
          request.on('end', () =>
            done(new Error(`the control plane answered ${status}: ${body.slice(0, 500)}`)),
          );
          return;
        }
        this.connections += 1;
        const tunnel = new TunnelSession(request, {
          accept: (target) => {
            if (!this.allows(target)) {
              return Promise.reject(
                new Error(`${target.host}:${target.port} is outside this node's network`),
              );
            }
            return (options.dial ?? dialTcp)(target);
          },
        });
        this.current = { session, tunnel };
        tunnel.onClose((error) => done(error));
      });
    });
  }
}
