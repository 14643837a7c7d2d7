// The kubelet's /exec and /attach/<ns>/<pod>/<container> (pkg/kubelet/server/server.go getExec,
// getAttach): the streams asked for (`input`, `output`, `error`, `tty` set to 1, `command`
// repeated for exec), the pod and its running container, then CRI Exec or Attach for a URL on the
// runtime's streaming server, and the upgraded connection proxied there; the runtime speaks the
// remotecommand protocols itself.
import { connect } from 'node:net';
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

export function streamingUpgrade(pods: () => readonly Pod[], prepare: PrepareStream) {
  return async ({ req, socket, head, params, query }: KubeletUpgradeRequest): Promise<void> => {
    const streams = streamOptions(query);
    if (!streams.stdin && !streams.stdout && !streams.stderr) {
      return writeRawText(socket, 400, 'Bad Request', 'you must specify at least 1 of stdin, stdout, stderr');
    }
    const pod = pods().find(
      (p) => p.metadata?.namespace === params.podNamespace && p.metadata?.name === params.podID,
    );
    if (!pod) return writeRawText(socket, 404, 'Not Found', 'pod does not exist');
    const containerId = runningContainerId(pod, params.containerName ?? '');
    if (!containerId) {
      return writeRawText(
        socket,
        500,
        'Internal Server Error',
        `container not found (${JSON.stringify(params.containerName ?? '')})`,
      );
    }
    let url: URL;
    try {
      url = new URL(await prepare(containerId, query.getAll('command'), streams));
    } catch (error) {
      return writeRawText(socket, 500, 'Internal Server Error', (error as Error).message);
    }
    const backend = connect(Number(url.port || 80), url.hostname.replace(/^\[(.*)\]$/, '$1'));
    backend.once('error', () =>
      writeRawText(socket, 502, 'Bad Gateway', 'error dialing the streaming server'),
    );
    await new Promise<void>((resolve) => backend.once('connect', resolve));
    const target = `${url.pathname}${url.search}`;
    await joinUpgraded(
      socket,
      backend,
      requestHead(req.method ?? 'GET', target, url.host, req.headers),
      head,
    );
  };
}
