// The control plane's in-process clients. Controllers and the scheduler reach the apiserver
// through the same request handler (authentication, RBAC, admission) as any remote client, but
// over h2c on in-memory stream pairs instead of a socket. Each identity gets a random bearer
// token, as kube-apiserver mints its loopback token at start-up.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Http2Server, type Http2Session } from 'node:http2';
import type { ApiServer } from '../apiserver/api-server.js';
import type { UserInfo } from '../apiserver/http/types.js';
import { HTTP2_SESSION_MEMORY_MB } from '../client/rest/connection.js';
import { createRestClient } from '../client/rest/rest-client.js';
import type { Client } from '../client/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../pki/service-account-claims.js';
import { duplexPair } from './duplex-pair.js';

const AUTHENTICATED = 'system:authenticated';

/** The identity kube-controller-manager gives a controller (`--use-service-account-credentials`). */
export function controllerIdentity(controller: string): UserInfo {
  return {
    name: serviceAccountUsername('kube-system', controller),
    groups: [...serviceAccountGroups('kube-system'), AUTHENTICATED],
  };
}

/** The scheduler's identity (its client certificate's subject in kubeadm clusters). */
export const SCHEDULER_IDENTITY: UserInfo = { name: 'system:kube-scheduler', groups: [AUTHENTICATED] };

export class Loopback {
  private readonly server: Http2Server;
  private readonly tokens = new Map<string, string>();
  private readonly sessions = new Set<Http2Session>();
  private readonly clients = new Set<Client>();

  constructor(private readonly apiServer: ApiServer) {
    this.server = createServer({ maxSessionMemory: HTTP2_SESSION_MEMORY_MB }, apiServer.handle);
    this.server.on('session', (session: Http2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
  }

  /** A client acting as `identity`; `component` names it in the user agent. */
  client(identity: UserInfo, component: string): Client {
    const client = createRestClient({
      identity: identity.name,
      component,
      token: this.tokenFor(identity),
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

  /** Ends every loopback connection: calls in flight fail, watches end. */
  async close(): Promise<void> {
    await Promise.all([...this.clients].map((client) => client.close()));
    for (const session of this.sessions) session.destroy();
  }

  private tokenFor(identity: UserInfo): string {
    const key = JSON.stringify([identity.name, identity.uid, identity.groups, identity.extra]);
    let token = this.tokens.get(key);
    if (!token) {
      token = randomBytes(32).toString('base64url');
      this.apiServer.authenticator.addStaticToken(token, identity);
      this.tokens.set(key, token);
    }
    return token;
  }
}
