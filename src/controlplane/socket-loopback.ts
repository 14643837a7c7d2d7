// Loopback clients for a thread other than the apiserver's: h2c over the control plane's local
// socket, with the same identity tokens as the in-process ones (see loopback.ts).
import { connect } from 'node:http2';
import { connect as connectSocket } from 'node:net';
import { loopbackToken } from '../apiserver/auth/loopback-token.js';
import type { UserInfo } from '../apiserver/http/types.js';
import { HTTP2_SESSION_MEMORY_MB } from '../client/rest/connection.js';
import { createRestClient } from '../client/rest/rest-client.js';
import type { Client } from '../client/types.js';
import type { LoopbackAccess, LoopbackClients } from './loopback.js';

export class SocketLoopbackClients implements LoopbackClients {
  private readonly clients = new Set<Client>();

  constructor(private readonly access: LoopbackAccess) {}

  client(identity: UserInfo, component: string): Client {
    const client = createRestClient({
      identity: identity.name,
      component,
      token: loopbackToken(this.access.secret, identity),
      connect: () =>
        connect('http://loopback', {
          createConnection: () => connectSocket(this.access.socketPath),
          maxSessionMemory: HTTP2_SESSION_MEMORY_MB,
        }),
    });
    this.clients.add(client);
    return client;
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients].map((client) => client.close()));
  }
}
