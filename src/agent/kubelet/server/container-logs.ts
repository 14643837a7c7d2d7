// GET /containerLogs/<namespace>/<pod>/<container>: a container's log from its CRI log file,
// with PodLogOptions, answering as the kubelet does: 404 for an unknown pod or container, 400
// with a sentence when the container has no log to show (waiting, no previous instance), and
// once streaming has begun, any later failure written into the stream as text.
import { parsePodLogQuery, validatePodLogOptions } from '../../../api/pod-log-options.js';
import type { Container, ContainerStatus, Pod } from '../../../api/types/core-v1.generated.js';
import { type LogReadOptions, readContainerLog } from './log-reader.js';
import { type KubeletRequest, writeText } from './router.js';

/** What the log endpoint needs from the kubelet. */
export interface ContainerLogSource {
  /** The pods the kubelet runs, with the status it last computed. */
  pods(): readonly Pod[];
  /** The runtime's view of a container (CRI ContainerStatus): undefined once it is gone. */
  containerStatus(containerId: string): Promise<{ logPath: string; running: boolean } | undefined>;
}

function allContainers(pod: Pod): Container[] {
  const spec = pod.spec;
  return [
    ...(spec?.initContainers ?? []),
    ...(spec?.containers ?? []),
    ...((spec?.ephemeralContainers ?? []) as Container[]),
  ];
}

/**
 * The kubelet's validateContainerLogStatus: which container instance's log to read (a full
 * container ID like `containerd://<id>`), or the sentence explaining why there is none.
 */
export function containerIdForLogs(pod: Pod, containerName: string, previous: boolean): string {
  const podName = pod.metadata?.name ?? '';
  const status = pod.status ?? {};
  const statuses: ContainerStatus[] = [
    ...(status.containerStatuses ?? []),
    ...(status.initContainerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ];
  const found = statuses.find((s) => s.name === containerName);
  const where = `container "${containerName}" in pod "${podName}"`;
  if (!found) throw new Error(`${where} is not available`);
  const last = found.lastState?.terminated;
  const { waiting, running, terminated } = found.state ?? {};
  if (previous) {
    if (!last?.containerID) throw new Error(`previous terminated ${where} not found`);
    return last.containerID;
  }
  if (running) return found.containerID ?? '';
  if (terminated) {
    if (terminated.containerID) return terminated.containerID;
    if (last?.containerID) return last.containerID;
    throw new Error(`${where} is terminated`);
  }
  if (last) {
    if (!last.containerID) throw new Error(`${where} is terminated`);
    return last.containerID;
  }
  if (waiting) {
    if (waiting.reason === 'ErrImagePull')
      throw new Error(`${where} is waiting to start: image can't be pulled`);
    if (waiting.reason === 'ImagePullBackOff') {
      throw new Error(`${where} is waiting to start: trying and failing to pull image`);
    }
    throw new Error(`${where} is waiting to start: ${waiting.reason ?? ''}`);
  }
  throw new Error(`${where} is waiting to start - no logs yet`);
}

/** `containerd://abc` → `abc`: the ID CRI knows. */
function runtimeId(containerId: string): string {
  const at = containerId.indexOf('://');
  return at < 0 ? containerId : containerId.slice(at + 3);
}

export function containerLogsHandler(source: ContainerLogSource) {
  return async ({ req, res, params, signal }: KubeletRequest): Promise<void> => {
    const { podNamespace, podID, containerName } = params;
    const query = new URL(req.url ?? '/', 'http://kubelet').searchParams;
    // `tail` is the older name of tailLines; `all` means the whole log.
    const tail = query.get('tail');
    if (tail) {
      if (tail === 'all') query.delete('tailLines');
      else query.set('tailLines', tail);
    }
    let options: ReturnType<typeof parsePodLogQuery>;
    try {
      options = parsePodLogQuery(query);
    } catch {
      return writeText(res, 400, '{"message": "Unable to decode query."}');
    }
    if (validatePodLogOptions(options).length > 0)
      return writeText(res, 422, '{"message": "Invalid request."}');
    const pod = source
      .pods()
      .find((p) => p.metadata?.namespace === podNamespace && p.metadata?.name === podID);
    if (!pod) return writeText(res, 404, `pod "${podID}" does not exist`);
    if (!allContainers(pod).some((c) => c.name === containerName)) {
      return writeText(res, 404, `container "${containerName}" not found in pod "${podID}"`);
    }
    if (options.stream !== undefined && options.stream !== 'All') {
      return writeText(
        res,
        400,
        `unable to return the given log stream: "${options.stream}". Please enable PodLogsQuerySplitStreams feature gate in kubelet`,
      );
    }
    let containerId: string;
    try {
      containerId = containerIdForLogs(pod, containerName ?? '', options.previous);
    } catch (error) {
      return writeText(res, 400, (error as Error).message);
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'transfer-encoding': 'chunked' });
    // Headers go out now, as the kubelet's first (empty) write flushes them.
    res.flushHeaders();
    const now = Date.now();
    let since = options.sinceSeconds === undefined ? 0 : now - options.sinceSeconds * 1000;
    if (options.sinceTime !== undefined) since = Math.max(since, Date.parse(options.sinceTime));
    const readOptions: LogReadOptions = {
      since,
      tail: options.tailLines ?? -1,
      bytes: options.limitBytes ?? -1,
      timestamps: options.timestamps,
      follow: options.follow,
    };
    const id = runtimeId(containerId);
    try {
      const status = await source.containerStatus(id);
      if (!status) throw new Error(`unable to retrieve container logs for ${containerId}`);
      await readContainerLog(
        status.logPath,
        readOptions,
        {
          write: (chunk) =>
            new Promise<void>((resolve) => {
              if (res.write(chunk) || res.destroyed) return resolve();
              const done = () => {
                res.off('drain', done);
                res.off('close', done);
                resolve();
              };
              res.once('drain', done);
              res.once('close', done);
            }),
        },
        async () => (await source.containerStatus(id))?.running === true,
        signal,
      );
    } catch (error) {
      if (!res.destroyed) res.write((error as Error).message);
    }
    res.end();
  };
}
