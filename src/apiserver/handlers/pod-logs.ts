// pods/log: kube-apiserver checks the PodLogOptions and the container, then proxies the
// request to the kubelet of the pod's node (its InternalIP, the port in
// status.daemonEndpoints) with its own client certificate, and streams the answer back. The
// kubelet's failures become Status errors the way kube-apiserver's response checker makes them.
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../../api/object.js';
import { kubeletLogQuery, parsePodLogQuery, validatePodLogOptions } from '../../api/pod-log-options.js';
import type { Container, Node, Pod } from '../../api/types/core-v1.generated.js';
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { badRequest, internalError, invalid, StatusError, type StatusReason } from '../status.js';
import { logStreamProtocol, streamOverWebSocket } from '../streaming/log-websocket.js';
import { checkWebSocketHandshake } from '../streaming/websocket-accept.js';
import { isUpgradeRequest, isWebSocketRequest, offeredProtocols } from '../streaming/websocket-protocols.js';
import {
  type KubeletClientCredentials,
  type KubeletRequest,
  kubeletAddress,
  sendToKubelet,
  streamResponse,
} from './kubelet-connection.js';

export interface PodLogsDeps {
  readonly nodes: () => ResourceStore;
  readonly credentials: () => Promise<KubeletClientCredentials>;
  /** How the kubelet is reached (directly or through its node's tunnel). */
  readonly dial?: KubeletRequest['dial'];
}

/** How much of a kubelet's error body becomes the message. */
const MAX_ERROR_BODY = 50_000;

/** The container to read: the one named (which must exist), or the only one; else the choices. */
export function logContainerName(pod: Pod, requested: string | undefined): string {
  const name = pod.metadata?.name ?? '';
  const spec = pod.spec;
  const all: Container[] = [
    ...(spec?.initContainers ?? []),
    ...(spec?.containers ?? []),
    ...((spec?.ephemeralContainers ?? []) as Container[]),
  ];
  if (!requested) {
    const containers = spec?.containers ?? [];
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(
      `a container name must be specified for pod ${name}, choose one of: [${all.map((c) => c.name).join(' ')}]`,
    );
  }
  if (!all.some((c) => c.name === requested))
    throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** kube-apiserver's GenericHttpResponseChecker for a kubelet answer that is not 2xx. */
export function kubeletResponseError(code: number, body: string, podName: string): StatusError {
  if (code === 500) return internalError(new Error(body));
  if (code === 400) return badRequest(body);
  const generic: Record<number, [StatusReason, string]> = {
    404: ['NotFound', 'the server could not find the requested resource'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    409: ['Conflict', 'the server reported a conflict'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    504: [
      'Timeout',
      'the server was unable to return a response in the time allotted, but may still be processing the request',
    ],
  };
  let [reason, message]: [StatusReason | '', string] = generic[code] ?? [
    code >= 500 ? 'InternalError' : '',
    code >= 500
      ? `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`
      : `the server responded with the status code ${code} but did not return more information`,
  ];
  message = `${message} ( pods/log ${podName})`;
  return new StatusError(code, reason, message, { name: podName, kind: 'pods/log' });
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size < MAX_ERROR_BODY) chunks.push(chunk);
      size += chunk.length;
    });
    response.on('end', () => resolve(Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY).toString('utf8')));
    response.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export function podLogsHandler(deps: PodLogsDeps) {
  return async (ctx: RequestContext, pods: ResourceStore, namespace: string, name: string): Promise<void> => {
    let options: ReturnType<typeof parsePodLogQuery>;
    try {
      options = parsePodLogQuery(ctx.query);
    } catch (error) {
      throw badRequest((error as Error).message);
    }
    const problems = validatePodLogOptions(options);
    if (problems.length > 0) throw invalid('', 'PodLogOptions', name, problems);
    // A WebSocket request gets the log as messages (wsstream.Reader), once the kubelet answered.
    let webSocketProtocol: string | undefined;
    if (isWebSocketRequest(ctx.headers) && isUpgradeRequest(ctx.headers) && ctx.req.socket) {
      checkWebSocketHandshake(ctx.method, ctx.headers);
      const offered = offeredProtocols(ctx.headers);
      webSocketProtocol = logStreamProtocol(offered);
      if (webSocketProtocol === undefined) {
        throw badRequest(
          `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [binary.k8s.io base64.binary.k8s.io]`,
        );
      }
    }
    const pod = (await pods.get(namespace, name)) as KubeObject as Pod;
    const container = logContainerName(pod, options.container);
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName === '') {
      // Not scheduled yet: an empty log, as kube-apiserver answers.
      ctx.res.writeHead(200, { 'content-type': 'text/plain' });
      ctx.res.end();
      return;
    }
    const node = (await deps.nodes().get('', nodeName)) as KubeObject as Node;
    const { host, port } = kubeletAddress(node);
    const credentials = await deps.credentials();
    const path = `/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}`;
    const query = kubeletLogQuery(options).toString();
    const url = new URL(`https://${host}:${port}${path}${query ? `?${query}` : ''}`);
    const response = await sendToKubelet(
      {
        url,
        method: 'GET',
        credentials,
        insecureSkipVerify: options.insecureSkipTLSVerifyBackend,
        dial: deps.dial,
        signal: ctx.res,
      },
      (dialText) => internalError(new Error(`Get "${url.href}": ${dialText}`)),
    );
    const code = response.statusCode ?? 0;
    if (code < 200 || code > 206) throw kubeletResponseError(code, await readBody(response), name);
    if (webSocketProtocol !== undefined) {
      return streamOverWebSocket(ctx.req as IncomingMessage, ctx.req.socket, webSocketProtocol, response);
    }
    ctx.res.writeHead(200, { 'content-type': 'text/plain' });
    await streamResponse(response, ctx.res);
  };
}
