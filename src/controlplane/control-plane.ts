import { mkdirSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { ApiServer, type PathHandler } from '../apiserver/api-server.js';
import { oidcPaths } from '../apiserver/handlers/oidc.js';
import type { WatchSettings } from '../apiserver/handlers/watch.js';
import { patchSchemaForKind } from '../apiserver/openapi/patch-schema.js';
import { NamespaceDefaultsController } from '../controllers/namespace-defaults.js';
import { ResourceQuotaController } from '../controllers/resource-quota.js';
import { ensureClusterPki } from '../pki/cluster-pki.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from '../pki/service-account-claims.js';
import { SqliteStore } from '../storage/index.js';
import { bootstrapCluster, reconcileBootstrapPolicy } from './bootstrap.js';

export interface ControlPlaneOptions {
  /** The cluster's state directory: pki/, state.db. */
  readonly stateDir: string;
  readonly apiPort: number;
  /** Addresses the apiserver listens on. Default: 127.0.0.1. */
  readonly bindAddresses?: readonly string[];
  /** Extra non-resource paths (discovery, openapi, version). */
  readonly paths?: Readonly<Record<string, PathHandler>>;
  /** Overrides for tests: watch timeouts and bookmarks, store history window. */
  readonly watch?: WatchSettings;
  readonly historyRevisions?: number;
}

export interface RunningControlPlane {
  readonly apiServer: ApiServer;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * One process holding the apiserver (and, later, controllers and scheduler) on one store.
 * It answers /readyz only once the bootstrap objects exist.
 */
export async function startControlPlane(options: ControlPlaneOptions): Promise<RunningControlPlane> {
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
  const pki = await ensureClusterPki(join(options.stateDir, 'pki'));
  const store = SqliteStore.open({
    path: join(options.stateDir, 'state.db'),
    historyRevisions: options.historyRevisions,
  });
  let ready = false;
  let port = options.apiPort;
  const apiServer = new ApiServer({
    store,
    patchSchemaFor: patchSchemaForKind,
    ready: () => ready,
    watch: options.watch,
    serverAddress: () => `127.0.0.1:${port}`,
    serviceAccountTokens: {
      privateKeyPem: pki.serviceAccount.privateKeyPem,
      publicKeyPem: pki.serviceAccount.publicKeyPem,
      issuer: DEFAULT_SERVICE_ACCOUNT_ISSUER,
      audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    },
    paths: {
      ...oidcPaths(DEFAULT_SERVICE_ACCOUNT_ISSUER, pki.serviceAccount.publicKeyPem),
      ...options.paths,
    },
  });
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  const makeServer = (): Http2SecureServer => {
    const server = createSecureServer(
      {
        key: pki.apiServer.privateKeyPem,
        cert: pki.apiServer.certificatePem,
        ca: pki.ca.certificatePem,
        requestCert: true,
        rejectUnauthorized: false,
        allowHTTP1: true,
      },
      apiServer.handle,
    );
    server.on('session', (session: Http2Session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server.on('secureConnection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  // One server per address: the first picks the port (0 = any free one), the rest reuse it.
  const servers: Http2SecureServer[] = [];
  try {
    for (const address of options.bindAddresses?.length ? options.bindAddresses : ['127.0.0.1']) {
      const server = makeServer();
      port = await listen(server, address, port);
      servers.push(server);
    }
  } catch (error) {
    for (const server of servers) server.close();
    await store.close();
    throw error;
  }
  await bootstrapCluster(apiServer);
  await reconcileBootstrapPolicy(apiServer);
  await apiServer.start();
  const namespaceDefaults = new NamespaceDefaultsController(
    store,
    apiServer.resourceStore('', 'v1', 'namespaces')!,
    apiServer.resourceStore('', 'v1', 'serviceaccounts')!,
    apiServer.resourceStore('', 'v1', 'configmaps')!,
    pki.ca.certificatePem,
  );
  await namespaceDefaults.start();
  const quotaController = new ResourceQuotaController(
    apiServer.resourceStore('', 'v1', 'resourcequotas')!,
    (r) => apiServer.storeForResource(r.group, r.resource),
    apiServer.quotaNamespaces,
  );
  quotaController.start();
  ready = true;
  return {
    apiServer,
    port,
    async stop() {
      ready = false;
      apiServer.stop();
      namespaceDefaults.stop();
      quotaController.stop();
      const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      // Watches never end by themselves: close the connections they hold.
      for (const session of sessions) session.close();
      for (const socket of sockets) socket.destroy();
      await Promise.all(closed);
      await store.close();
    },
  };
}

/** Listens on one address and reports the port bound. */
function listen(server: Http2SecureServer, address: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, address, () => {
      server.off('error', onError);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound ? bound.port : port);
    });
  });
}
