// The kubelet's /exec and /attach/<ns>/<pod>/<container> (pkg/kubelet/server/server.go getExec,
// getAttach), and /portForward/<ns>/<pod> (getPortForward: the runtime serves the pod's network): the streams asked for (`input`, `output`, `error`, `tty` set to 1, `command`
// repeated for exec), the pod and its running container, then CRI Exec or Attach for a URL on the
// runtime's streaming server, and the upgraded connection proxied there; the runtime speaks the
// remotecommand protocols itself.
import { connect } from 'node:net';
import { pooledCopyReads, ReadBuffers } from '../../../api/stream-copy.js';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import { joinUpgraded, requestHead } from '../../../api/upgrade-proxy.js';
import type { StreamingExecRequest } from '../cri/client.js';
import { type KubeletUpgradeRequest, writeRawText } from './router.js';

/** What the runtime is asked for (CRI Exec or Attach): the streaming server's URL. */
export type PrepareStream = (
  containerId: string,
  command: readonly string[],
  streams: Omit<StreamingExecRequest, 'containerId' | 'cmd'>,
) => Promise<string>;

/** The running container's runtime id, without its `containerd://` scheme; undefined if none. */
export function runningContainerId(pod: Pod, containerName: string): string | undefined {
  const status = pod.status ?? {};
  const found = [
    ...(status.containerStatuses ?? []),
    ...(status.initContainerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ].find((s) => s.name === containerName);
  if (!found?.state?.running || !found.containerID) return undefined;
  return found.containerID.replace(/^[a-z]+:\/\//, '');
}

/** remotecommand's NewOptions: which streams the client wants (a TTY merges stderr into stdout). */
export function streamOptions(query: URLSearchParams): Omit<StreamingExecRequest, 'containerId' | 'cmd'> {
  const tty = query.get('tty') === '1';
  return {
    tty,
    stdin: query.get('input') === '1',
    stdout: query.get('output') === '1',
    stderr: !tty && query.get('error') === '1',
  };
}

/** Read buffers of the streaming servers' connections, shared by all of them. */
const streamingReads = new ReadBuffers();

/**
 * Joins the upgraded connection to the runtime's streaming server at `target`. The server's bytes
 * (a port forward's download, an exec's output) are read into reused buffers, written straight to
 * the client: per-read Buffers made V8 collect the whole heap every few tens of MB.
 */
async function proxyToStreamingServer(request: KubeletUpgradeRequest, target: string): Promise<void> {
  const { req, socket, head } = request;
  const url = new URL(target);
  const reads = pooledCopyReads(socket, streamingReads);
  const backend = connect({
    port: Number(url.port || 80),
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    onread: reads.onread,
  });
  reads.attach(backend);
  const connected = await new Promise<boolean>((resolve) => {
    backend.once('connect', () => resolve(true));
    backend.once('error', () => resolve(false));
  });
  if (!connected) return writeRawText(socket, 502, 'Bad Gateway', 'error dialing the streaming server');
  const path = `${url.pathname}${url.search}`;
  await joinUpgraded(socket, backend, requestHead(req.method ?? 'GET', path, url.host, req.headers), head);
}

function findPod(pods: () => readonly Pod[], params: Readonly<Record<string, string>>): Pod | undefined {
  return pods().find(
    (p) => p.metadata?.namespace === params.podNamespace && p.metadata?.name === params.podID,
  );
}

/** /portForward: the pod's sandbox, whatever ports the client opens streams for. */
export function portForwardUpgrade(
  pods: () => readonly Pod[],
  prepare: (podUid: string, ports: readonly number[]) => Promise<string>,
) {
  return async (request: KubeletUpgradeRequest): Promise<void> => {
    const pod = findPod(pods, request.params);
    if (!pod) return writeRawText(request.socket, 404, 'Not Found', 'pod does not exist');
    const ports = request.query.getAll('port').map(Number);
    let target: string;
    try {
      target = await prepare(pod.metadata?.uid ?? '', ports);
    } catch (error) {
      return writeRawText(request.socket, 500, 'Internal Server Error', (error as Error).message);
    }
    await proxyToStreamingServer(request, target);
  };
}

export function streamingUpgrade(pods: () => readonly Pod[], prepare: PrepareStream) {
  return async (request: KubeletUpgradeRequest): Promise<void> => {
    const { socket, params, query } = request;
    const streams = streamOptions(query);
    if (!streams.stdin && !streams.stdout && !streams.stderr) {
      return writeRawText(socket, 400, 'Bad Request', 'you must specify at least 1 of stdin, stdout, stderr');
    }
    const pod = findPod(pods, params);
    if (!pod) return writeRawText(socket, 404, 'Not Found', 'pod does not exist');
    const name = params.containerName ?? '';
    const containerId = runningContainerId(pod, name);
    if (!containerId) {
      return writeRawText(
        socket,
        500,
        'Internal Server Error',
        `container not found (${JSON.stringify(name)})`,
      );
    }
    let target: string;
    try {
      target = await prepare(containerId, query.getAll('command'), streams);
    } catch (error) {
      return writeRawText(socket, 500, 'Internal Server Error', (error as Error).message);
    }
    await proxyToStreamingServer(request, target);
  };
}
