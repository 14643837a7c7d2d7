import { chmodSync, mkdirSync } from 'node:fs';
import { type IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { ApiServer, type PathHandler } from '../apiserver/api-server.js';
import { ensureFlowControlConfiguration } from '../apiserver/flowcontrol/configuration-ensurer.js';
import type { KubeletClientCredentials } from '../apiserver/handlers/kubelet-connection.js';
import { oidcPaths } from '../apiserver/handlers/oidc.js';
import type { WatchSettings } from '../apiserver/handlers/watch.js';
import { answerClientErrorsInOrder } from '../apiserver/http/client-error.js';
import { APISERVER_HTTP2_SETTINGS, widenConnectionWindow } from '../apiserver/http/http2-windows.js';
import type { UserInfo } from '../apiserver/http/types.js';
import { patchSchemaForKind } from '../apiserver/openapi/patch-schema.js';
import { tunnelModeFrom } from '../apiserver/tunnel/dialer.js';
import { HTTP2_SESSION_MEMORY_MB } from '../client/rest/connection.js';
import type { Client } from '../client/types.js';
import { type ClusterSettings, DEFAULT_CLUSTER_SETTINGS } from '../controllers/context.js';
import {
  type ClusterPki,
  ensureApiServerKubeletClientCertificate,
  ensureClusterPki,
} from '../pki/cluster-pki.js';
import { ensureFrontProxyPki, FRONT_PROXY_CLIENT_COMMON_NAME } from '../pki/front-proxy.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from '../pki/service-account-claims.js';
import { clusterSettingsForNodes, type FakeNodes, type FakeNodesOptions } from '../providers/fake/index.js';
import { type DatastoreEndpoint, openDatastore } from '../storage/index.js';
import { bootstrapCluster, reconcileBootstrapPolicy } from './bootstrap.js';
import {
  type ComponentThreadEntries,
  type PreparedComponentThreads,
  prepareComponentThreads,
} from './component-thread.js';
import { COMPONENT_NAMES, startComponents } from './components.js';
import { waitForDefaultServiceAccounts } from './default-service-accounts.js';
import { advertiseAddress, KubernetesEndpointsReconciler } from './kubernetes-endpoints.js';
import type { LeaderElectionSettings } from './leader-elected.js';
import {
  type HostPortsMode,
  hostPortsModeFrom,
  type LoadBalancerHostPorts,
  startLoadBalancerHostPorts,
} from './load-balancer-host-ports.js';
import { controllerIdentity, Loopback } from './loopback.js';
import { ensureNodeAutoApprovePolicy } from './node-autoapprove-policy.js';
import { ensureTkubePolicy } from './tkube-policy.js';

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
  /** Where the state lives (`--datastore-endpoint`); default SQLite in the state directory. */
  readonly datastore?: DatastoreEndpoint;
  /** Simulated nodes (`--fake-nodes N`), started after the controllers. */
  readonly fakeNodes?: FakeNodesOptions;
  /** Overrides of the controllers' settings (tests use short grace periods). */
  readonly controllerSettings?: Partial<ClusterSettings>;
  /** The built-in metrics server's `--metric-resolution` (15 s by default). */
  readonly metricResolutionMs?: number;
  /**
   * The program's entry point, to run the controllers and the scheduler on a thread of their own
   * (see component-thread.ts). Without it they run on this thread.
   */
  readonly componentThreadEntries?: ComponentThreadEntries;
  /** With an entry: a thread for each component (the default) or one `shared` by both. */
  readonly componentThreadLayout?: 'separate' | 'shared';
  /** One of several control planes: its controller manager and scheduler act only while leading. */
  readonly leaderElection?: LeaderElectionSettings;
  /** The port the `kubernetes` Service's endpoints name (the balancer's, with several control planes). */
  readonly advertisePort?: number;
}

export interface RunningControlPlane {
  readonly apiServer: ApiServer;
  readonly port: number;
  /**
   * The simulated nodes, when started with `fakeNodes` and no component thread (tests stop one
   * node's kubelet through it); with the thread they run there.
   */
  readonly fakeNodes?: FakeNodes;
  /** An in-process client acting as `identity` (see loopback.ts for controller and scheduler identities). */
  loopbackClient(identity: UserInfo, component: string): Client;
  /** LoadBalancer addresses published on host ports (unless TKUBE_LOAD_BALANCER_HOST_PORTS=never). */
  readonly loadBalancerHostPorts?: LoadBalancerHostPorts;
  stop(): Promise<void>;
}

/**
 * One process holding the apiserver (and, later, controllers and scheduler) on one store.
 * It answers /readyz once the bootstrap objects and policy exist, and returns once the system
 * namespaces have their default ServiceAccounts too.
 */
export async function startControlPlane(options: ControlPlaneOptions): Promise<RunningControlPlane> {
  // Read first: a mistyped setting fails the start rather than a running cluster.
  const hostPortsMode = hostPortsModeFrom(process.env);
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
  // Owner-only even when it existed before: it holds the keys, the database and the loopback socket.
  chmodSync(options.stateDir, 0o700);
  const pkiDir = join(options.stateDir, 'pki');
  const pki = await ensureClusterPki(pkiDir);
  // Many fake nodes need smaller pod CIDRs for each to get one.
  const settings = clusterSettingsForNodes(options.fakeNodes?.count ?? 0, {
    ...DEFAULT_CLUSTER_SETTINGS,
    rootCaPem: pki.ca.certificatePem,
    serviceAccountPrivateKeyPem: pki.serviceAccount.privateKeyPem,
    clusterSigningCertPem: pki.ca.certificatePem,
    clusterSigningKeyPem: pki.ca.privateKeyPem,
    ...options.controllerSettings,
  });
  const threads =
    options.componentThreadEntries &&
    prepareComponentThreads(
      options.componentThreadEntries,
      options.componentThreadLayout ?? 'separate',
      settings,
      options.fakeNodes,
      options.leaderElection,
    );
  try {
    return await serveControlPlane(options, pki, settings, threads, hostPortsMode);
  } catch (error) {
    await threads?.discard();
    throw error;
  }
}

/** startControlPlane's part from the store on, with the component threads already loading. */
async function serveControlPlane(
  options: ControlPlaneOptions,
  pki: ClusterPki,
  settings: ClusterSettings,
  threads: PreparedComponentThreads | undefined,
  hostPortsMode: HostPortsMode,
): Promise<RunningControlPlane> {
  const frontProxy = await ensureFrontProxyPki(join(options.stateDir, 'pki'));
  const store = await openDatastore(
    options.datastore ?? { kind: 'sqlite', path: join(options.stateDir, 'state.db') },
    {
      historyRevisions: options.historyRevisions,
    },
  );
  let ready = false;
  let port = options.apiPort;
  // Made on first use (the first `kubectl logs`): start-up needs no extra key.
  let kubeletClient: Promise<KubeletClientCredentials> | undefined;
  const kubeletClientCredentials = () =>
    (kubeletClient ??= ensureApiServerKubeletClientCertificate(pki).then(
      (leaf) => ({ ...leaf, caPem: pki.ca.certificatePem }),
      (error: unknown) => {
        kubeletClient = undefined;
        throw error;
      },
    ));
  const apiServer = new ApiServer({
    store,
    patchSchemaFor: patchSchemaForKind,
    ready: () => ready,
    watch: options.watch,
    serverAddress: () => `127.0.0.1:${port}`,
    kubeletClient: kubeletClientCredentials,
    metricResolutionMs: options.metricResolutionMs,
    apiServerTunnel: tunnelModeFrom(process.env),
    aggregation: {
      proxyClient: async () => frontProxy.client,
      requestHeader: async () => ({
        clientCaPem: pki.ca.certificatePem,
        requestHeaderCaPem: frontProxy.ca.certificatePem,
        allowedNames: [FRONT_PROXY_CLIENT_COMMON_NAME],
      }),
    },
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
        maxSessionMemory: HTTP2_SESSION_MEMORY_MB,
        settings: APISERVER_HTTP2_SETTINGS,
      },
      apiServer.handle,
    );
    answerClientErrorsInOrder(server);
    server.on('session', (session: Http2Session) => {
      widenConnectionWindow(session);
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    // HTTP/1.1 upgrade requests (exec over SPDY) take the same path as any request; their handler
    // may take over the connection, else it answers once and the connection closes.
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      if (head.length > 0) socket.unshift(head);
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket);
      res.on('finish', () => socket.end());
      apiServer.handle(req, res);
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
  await bootstrapCluster(apiServer, port);
  const advertised = advertiseAddress(options.bindAddresses ?? []);
  const kubernetesEndpoints =
    advertised === undefined
      ? undefined
      : new KubernetesEndpointsReconciler(apiServer, advertised, options.advertisePort ?? port);
  if (kubernetesEndpoints) await kubernetesEndpoints.start();
  else console.error('control plane: no address to advertise in the kubernetes Endpoints');
  await reconcileBootstrapPolicy(apiServer);
  await ensureFlowControlConfiguration({
    flowSchemas: apiServer.resourceStore('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas')!,
    priorityLevels: apiServer.resourceStore(
      'flowcontrol.apiserver.k8s.io',
      'v1',
      'prioritylevelconfigurations',
    )!,
  });
  await ensureTkubePolicy(apiServer);
  await ensureNodeAutoApprovePolicy(apiServer);
  await apiServer.start();
  // Control planes sharing the state directory each need a loopback socket of their own.
  const loopbackDir = options.leaderElection
    ? join(options.stateDir, 'members', String(port))
    : options.stateDir;
  if (options.leaderElection) mkdirSync(loopbackDir, { recursive: true, mode: 0o700 });
  const loopback = new Loopback(apiServer, loopbackDir);
  const components = threads
    ? threads.start(loopback.access())
    : startComponents(loopback, settings, COMPONENT_NAMES, options.fakeNodes, options.leaderElection);
  await components.ready;
  const loadBalancerHostPorts = startLoadBalancerHostPorts(
    loopback.client(controllerIdentity('service-controller'), 'tkube-load-balancer-host-ports'),
    apiServer.dialer,
    hostPortsMode,
  );
  ready = true;
  // In-process users create pods as soon as this returns: their namespaces need the accounts.
  const accounts = apiServer.resourceStore('', 'v1', 'serviceaccounts')!;
  const missing = await waitForDefaultServiceAccounts({
    exists: async (namespace) => (await accounts.find(namespace, 'default')) !== undefined,
  });
  if (missing) console.error(`control plane: no default service account in namespace ${missing} yet`);
  return {
    apiServer,
    port,
    fakeNodes: components.fakeNodes,
    loopbackClient: (identity, component) => loopback.client(identity, component),
    loadBalancerHostPorts: loadBalancerHostPorts?.hostPorts,
    async stop() {
      ready = false;
      await loadBalancerHostPorts?.stop();
      await kubernetesEndpoints?.stop();
      apiServer.stop();
      await components.stop();
      await loopback.close();
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
