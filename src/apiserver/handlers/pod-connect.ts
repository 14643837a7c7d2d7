// pods/exec, pods/attach and pods/portforward: what kube-apiserver's ExecREST, AttachREST and
// PortForwardREST check before they proxy to the kubelet (pkg/registry/core/pod/strategy.go,
// streamLocation and PortForwardLocation): the pod, the container, its node and that node's
// kubelet address; then upstream's upgrade-aware handler refuses a request that is no upgrade
// ("Upgrade request required"), so a plain GET never answers with the Pod. An exec or attach
// upgrade over SPDY is joined byte for byte with the kubelet's /exec or /attach (the kubelet's
// answer, 101 or an error, reaches the client as it is). Port forwarding goes the same way to
// the kubelet's /portForward. WebSockets as upstream serves them (KEP-4006): exec/attach with
// v5.channel.k8s.io end here and go on to the kubelet over SPDY (`streaming/exec-translator.ts`),
// port forwarding tunnelled as `SPDY/3.1+portforward.k8s.io` is unwrapped here
// (`streaming/spdy-tunnel.ts`), older channel protocols pass on to the kubelet as they are.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext, connect as tlsConnect } from 'node:tls';
import { dialErrorText } from '../../api/go-net-errors.js';
import type { KubeObject } from '../../api/object.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import { joinUpgraded, requestHead } from '../../api/upgrade-proxy.js';
import type { AdmissionAttributes } from '../admission/chain.js';
import { queryBool } from '../http/query-bool.js';
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { badRequest, internalError } from '../status.js';
import { translateExec } from '../streaming/exec-translator.js';
import type { PodStreamMetrics, PodStreamTransport } from '../streaming/metrics.js';
import { tunnelSpdy } from '../streaming/spdy-tunnel.js';
import { acceptWebSocket, checkWebSocketHandshake } from '../streaming/websocket-accept.js';
import {
  isUpgradeRequest,
  isWebSocketRequest,
  offeredProtocols,
  SPDY_EXEC_PROTOCOL,
  V5_CHANNEL_PROTOCOL,
  webSocketRoute,
} from '../streaming/websocket-protocols.js';
import { type KubeletClientCredentials, type KubeletRequest, kubeletAddress } from './kubelet-connection.js';

/** The subresources that connect to a stream in a container. */
export const POD_CONNECT_SUBRESOURCES = ['attach', 'exec', 'portforward'] as const;
export type PodConnectSubresource = (typeof POD_CONNECT_SUBRESOURCES)[number];

export function isPodConnectSubresource(name: string): name is PodConnectSubresource {
  return (POD_CONNECT_SUBRESOURCES as readonly string[]).includes(name);
}

export interface PodConnectDeps {
  readonly nodes: () => ResourceStore;
  readonly credentials: () => Promise<KubeletClientCredentials>;
  /** How the kubelet is reached (directly or through its node's tunnel). */
  readonly dial?: KubeletRequest['dial'];
  /** Counts the connections by transport (the apiserver's /metrics). */
  readonly metrics?: PodStreamMetrics;
  /**
   * Admission of the CONNECT (upstream admits connect requests with the options object); tkube
   * runs the admission webhooks on it.
   */
  readonly admitConnect?: (attributes: AdmissionAttributes) => Promise<void>;
}

const CONNECT_OPTIONS_KINDS: Readonly<Record<PodConnectSubresource, string>> = {
  attach: 'PodAttachOptions',
  exec: 'PodExecOptions',
  portforward: 'PodPortForwardOptions',
};

/** The options object connect admission sees, from the request's query as upstream decodes it. */
function connectOptions(
  subresource: PodConnectSubresource,
  query: URLSearchParams,
  container: string,
): KubeObject {
  const kind = CONNECT_OPTIONS_KINDS[subresource];
  if (subresource === 'portforward')
    return { kind, apiVersion: 'v1', ports: query.getAll('ports').map(Number) } as KubeObject;
  const flag = (name: string) => query.get(name) === 'true' || query.get(name) === '1';
  const options: Record<string, unknown> = {
    kind,
    apiVersion: 'v1',
    stdin: flag('stdin'),
    stdout: flag('stdout'),
    stderr: flag('stderr'),
    tty: flag('tty'),
    container,
  };
  if (subresource === 'exec') options.command = query.getAll('command');
  return options as KubeObject;
}

/** The caller's credentials stay here. */
const CREDENTIAL_HEADERS = /^(authorization|impersonate-.*)$/i;

export type PodConnectHandler = (
  ctx: RequestContext,
  pods: ResourceStore,
  namespace: string,
  name: string,
  subresource: PodConnectSubresource,
) => Promise<void>;

/** streamLocation's container: the one named (any kind of container), or the only app container. */
export function streamContainerName(pod: Pod, requested: string): string {
  const name = pod.metadata?.name ?? '';
  const spec = pod.spec;
  const containers = spec?.containers ?? [];
  if (requested === '') {
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    const init = (spec?.initContainers ?? []).map((c) => c.name);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw badRequest(message);
  }
  const known = [...(spec?.initContainers ?? []), ...containers, ...(spec?.ephemeralContainers ?? [])];
  if (!known.some((c) => c.name === requested))
    throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** streamParams: PodExecOptions (PodAttachOptions, without a command) as the kubelet's query (`input`, `output`, `error`, `tty` set to 1). */
export function kubeletExecQuery(query: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const command of query.getAll('command')) params.append('command', command);
  const flags = { stdin: 'input', stdout: 'output', stderr: 'error', tty: 'tty' } as const;
  for (const [option, param] of Object.entries(flags)) if (queryBool(query, option)) params.set(param, '1');
  return params;
}

/** PodPortForwardOptions as the kubelet's query: a `port` for each of `ports`. */
export function kubeletPortForwardQuery(query: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const port of query.getAll('ports')) params.append('port', port);
  return params;
}

/**
 * The TLS context of the apiserver's kubelet client certificate, parsed once, and the last
 * session ticket per kubelet: a resumed handshake spares each exec the certificate signatures.
 */
const kubeletTlsByCredentials = new WeakMap<
  KubeletClientCredentials,
  { readonly context: SecureContext; readonly sessions: Map<string, Buffer> }
>();

function kubeletTls(credentials: KubeletClientCredentials) {
  let found = kubeletTlsByCredentials.get(credentials);
  if (!found) {
    found = {
      context: createSecureContext({
        ca: credentials.caPem,
        cert: credentials.certificatePem,
        key: credentials.privateKeyPem,
      }),
      sessions: new Map(),
    };
    kubeletTlsByCredentials.set(credentials, found);
  }
  return found;
}

/** A TLS connection to the kubelet with the apiserver's client certificate. */
async function dialKubelet(
  host: string,
  port: number,
  credentials: KubeletClientCredentials,
  dial: KubeletRequest['dial'],
): Promise<Duplex> {
  const address = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  try {
    const raw = dial ? await dial(host, port) : undefined;
    const tls = kubeletTls(credentials);
    const socket = tlsConnect({
      ...(raw ? { socket: raw, host } : { host, port }),
      ...(isIP(host) === 0 && { servername: host }),
      secureContext: tls.context,
      session: tls.sessions.get(address),
    });
    socket.once('session', (session: Buffer) => tls.sessions.set(address, session));
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    return socket;
  } catch (error) {
    throw internalError(new Error(`error dialing backend: ${dialErrorText(address, error)}`));
  }
}

export function podConnectHandler(deps: PodConnectDeps): PodConnectHandler {
  return async (ctx, pods, namespace, name, subresource) => {
    const pod = (await pods.get(namespace, name)) as KubeObject as Pod;
    // Port forwarding reaches the pod's network, not one container.
    const container =
      subresource === 'portforward' ? '' : streamContainerName(pod, ctx.query.get('container') ?? '');
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName === '') throw badRequest(`pod ${name} does not have a host assigned`);
    const { host, port } = kubeletAddress((await deps.nodes().get('', nodeName)) as KubeObject as Node);
    if (deps.admitConnect) {
      const object = connectOptions(subresource, ctx.query, container);
      await deps.admitConnect({
        operation: 'CONNECT',
        resource: { ...pods.info, kind: String(object.kind) },
        subresource,
        namespace,
        name,
        object,
        user: ctx.user,
        dryRun: false,
        warnings: [],
      });
    }
    if (!isUpgradeRequest(ctx.headers)) throw badRequest('Upgrade request required');
    const client = ctx.req.socket;
    if (!client) throw badRequest('Upgrade request required');
    const route = isWebSocketRequest(ctx.headers)
      ? webSocketRoute(subresource, offeredProtocols(ctx.headers))
      : undefined;
    // A WebSocket the apiserver answers itself must be a valid handshake before the kubelet is dialed.
    if (route && route.kind !== 'pass-through') checkWebSocketHandshake(ctx.method, ctx.headers);
    const backend = await dialKubelet(host, port, await deps.credentials(), deps.dial);
    const path =
      subresource === 'portforward'
        ? `/portForward/${[namespace, name].map(encodeURIComponent).join('/')}`
        : `/${subresource}/${[namespace, name, container].map(encodeURIComponent).join('/')}`;
    const headers = Object.fromEntries(
      Object.entries(ctx.headers).filter(([header]) => !CREDENTIAL_HEADERS.test(header)),
    );
    const query =
      subresource === 'portforward' ? kubeletPortForwardQuery(ctx.query) : kubeletExecQuery(ctx.query);
    const target = `${path}?${query.toString()}`;
    const hostHeader = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    const track = (transport: PodStreamTransport, done: Promise<void>) =>
      deps.metrics ? deps.metrics.track(subresource, transport, done) : done;
    if (route && route.kind !== 'pass-through') {
      // The kubelet is asked for SPDY, as client-go's SPDY executor and dialer ask.
      const spdyHeaders = {
        ...Object.fromEntries(
          Object.entries(headers).filter(
            ([header]) => !/^(sec-websocket-.*|upgrade|connection)$/i.test(header),
          ),
        ),
        Connection: 'Upgrade',
        Upgrade: 'SPDY/3.1',
        'X-Stream-Protocol-Version':
          route.kind === 'translate-exec' ? SPDY_EXEC_PROTOCOL : route.spdyProtocol,
      };
      const spdyRequest = requestHead('GET', target, hostHeader, spdyHeaders);
      const req = ctx.req as IncomingMessage;
      if (route.kind === 'translate-exec') {
        const ws = await acceptWebSocket(req, client, V5_CHANNEL_PROTOCOL);
        return track(
          'websocket-v5',
          translateExec(ws, backend, spdyRequest, {
            stdin: queryBool(ctx.query, 'stdin'),
            stdout: queryBool(ctx.query, 'stdout'),
            stderr: queryBool(ctx.query, 'stderr'),
            tty: queryBool(ctx.query, 'tty'),
          }),
        );
      }
      return track(
        'websocket-spdy-tunnel',
        tunnelSpdy(client, backend, spdyRequest, () => acceptWebSocket(req, client, route.protocol)),
      );
    }
    await track(
      route ? 'websocket' : 'spdy',
      joinUpgraded(client, backend, requestHead(ctx.method, target, hostHeader, headers), Buffer.alloc(0)),
    );
  };
}
