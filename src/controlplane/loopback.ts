// The control plane's own clients. Controllers, the scheduler and fake kubelets reach the
// apiserver through the same request handler (authentication, RBAC, admission) as any remote
// client, but over h2c: on in-memory stream pairs from this thread, and on a local socket from the
// component thread. Each identity's bearer token is made from a secret drawn at start-up, as
// kube-apiserver mints its loopback token.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Http2Server, type Http2Session } from 'node:http2';
import { createServer as createSocketServer, type Server as SocketServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiServer } from '../apiserver/api-server.js';
import { loopbackToken, newLoopbackSecret } from '../apiserver/auth/loopback-token.js';
import { APISERVER_HTTP2_SETTINGS, widenConnectionWindow } from '../apiserver/http/http2-windows.js';
import type { UserInfo } from '../apiserver/http/types.js';
import { HTTP2_SESSION_MEMORY_MB } from '../client/rest/connection.js';
import { createRestClient } from '../client/rest/rest-client.js';
import type { Client } from '../client/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../pki/service-account-claims.js';
import { duplexPair } from './duplex-pair.js';

const AUTHENTICATED = 'system:authenticated';

/** Makes clients acting as a given identity: what controllers and the scheduler are built on. */
export interface LoopbackClients {
  /** A client acting as `identity`; `component` names it in the user agent. */
  client(identity: UserInfo, component: string): Client;
}

/** What another thread needs to reach the apiserver: the socket and the token secret. */
export interface LoopbackAccess {
  readonly socketPath: string;
  readonly secret: string;
}

/** The identity kube-controller-manager gives a controller (`--use-service-account-credentials`). */
export function controllerIdentity(controller: string): UserInfo {
  return {
    name: serviceAccountUsername('kube-system', controller),
    groups: [...serviceAccountGroups('kube-system'), AUTHENTICATED],
  };
}

/** The scheduler's identity (its client certificate's subject in kubeadm clusters). */
export const SCHEDULER_IDENTITY: UserInfo = { name: 'system:kube-scheduler', groups: [AUTHENTICATED] };

export class Loopback implements LoopbackClients {
  private readonly server: Http2Server;
  private readonly secret = newLoopbackSecret();
  private readonly sessions = new Set<Http2Session>();
  private readonly clients = new Set<Client>();
  private socket: { server: SocketServer; path: string; cleanup: () => void } | undefined;

  /** `socketDir`: an owner-only (0700) directory for the socket file, the state directory. */
  constructor(
    apiServer: ApiServer,
    private readonly socketDir?: string,
  ) {
    apiServer.authenticator.trustLoopbackSecret(this.secret);
    this.server = createServer(
      { maxSessionMemory: HTTP2_SESSION_MEMORY_MB, settings: APISERVER_HTTP2_SETTINGS },
      apiServer.handle,
    );
    this.server.on('session', (session: Http2Session) => {
      widenConnectionWindow(session);
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
  }

  client(identity: UserInfo, component: string): Client {
    const client = createRestClient({
      identity: identity.name,
      component,
      token: loopbackToken(this.secret, identity),
      connect: () => {
        const [clientEnd, serverEnd] = duplexPair();
        this.server.emit('connection', serverEnd);
        return connect('http://loopback', {
          createConnection: () => clientEnd,
          maxSessionMemory: HTTP2_SESSION_MEMORY_MB,
        });
      },
    });
    this.clients.add(client);
    return client;
  }

  /** Opens (once) the local socket other threads connect to, and says how to use it. */
  access(): LoopbackAccess {
    if (!this.socket) {
      const { path, cleanup } = localSocketPath(this.socketDir);
      const server = createSocketServer((socket) => this.server.emit('connection', socket));
      // Binding a local socket completes within listen(): a client may connect right after.
      server.listen(path);
      this.socket = { server, path, cleanup };
    }
    return { socketPath: this.socket.path, secret: this.secret };
  }

  /** Ends every loopback connection: calls in flight fail, watches end. */
  async close(): Promise<void> {
    await Promise.all([...this.clients].map((client) => client.close()));
    for (const session of this.sessions) session.destroy();
    if (this.socket) {
      const { server, cleanup } = this.socket;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cleanup();
    }
  }
}

/** Linux's sun_path holds 108 bytes with the terminating NUL; other systems hold 104. */
const MAX_SOCKET_PATH = 103;

/**
 * A socket only this user can reach: a file in an owner-only directory (the state directory, or
 * a private temporary one when that path is too long for a socket address); a named pipe on
 * Windows. Not Linux's abstract namespace: any local user may connect to an abstract socket.
 */
function localSocketPath(socketDir: string | undefined): { path: string; cleanup: () => void } {
  if (process.platform === 'win32') {
    const name = `tkube-loopback-${process.pid}-${randomBytes(8).toString('hex')}`;
    return { path: `\\\\.\\pipe\\${name}`, cleanup: () => {} };
  }
  const inState = socketDir === undefined ? undefined : join(socketDir, 'loopback.sock');
  if (inState !== undefined && Buffer.byteLength(inState) <= MAX_SOCKET_PATH) {
    // The store's exclusive lock makes this the only control plane on the directory: a socket
    // file left there is a crashed predecessor's.
    rmSync(inState, { force: true });
    return { path: inState, cleanup: () => rmSync(inState, { force: true }) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tkube-'));
  return { path: join(dir, 'loopback.sock'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
