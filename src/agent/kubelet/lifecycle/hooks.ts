// postStart and preStop hooks (pkg/kubelet/lifecycle/handlers.go): a command run in the
// container through CRI ExecSync, an HTTP GET against the pod, or a sleep. A failed hook yields
// the kubelet's message for it; the caller decides what failure means.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { goQuote } from '../../../api/selectors/go-text.js';
import type { Container, LifecycleHandler, Pod } from '../../../api/types/core-v1.generated.js';
import { KUBERNETES_MAJOR, KUBERNETES_MINOR } from '../../../api/version.js';
import { formatPod } from '../config/security.js';

export type ExecInContainer = (
  containerId: string,
  cmd: readonly string[],
  timeoutSeconds: number,
) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

export interface HookContext {
  readonly pod: Pod;
  readonly container: Container;
  readonly containerId: string;
  readonly podIP: string;
  readonly exec: ExecInContainer;
  /** Aborts a hook that runs past the pod's grace period. */
  readonly signal?: AbortSignal;
}

function resolvePort(port: number | string, container: Container): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

function httpGet(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<void> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, { method: 'GET', headers, signal, rejectUnauthorized: false }, (response) => {
      response.resume();
      response.on('end', () => resolve());
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Runs the hook; undefined when it succeeded, else the failure message. */
export async function runHook(handler: LifecycleHandler, context: HookContext): Promise<string | undefined> {
  const { pod, container } = context;
  if (handler.exec) {
    const command = handler.exec.command ?? [];
    let output = '';
    let error = '';
    try {
      const result = await context.exec(context.containerId, command, 0);
      output = result.stdout + result.stderr;
      if (result.exitCode !== 0)
        error = `command '${command.join(' ')}' exited with ${result.exitCode}: ${result.stderr}`;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    if (!error) return undefined;
    return `Exec lifecycle hook ([${command.join(' ')}]) for Container ${goQuote(container.name)} in Pod ${goQuote(formatPod(pod))} failed - error: ${error}, message: ${goQuote(output)}`;
  }
  if (handler.httpGet) {
    const action = handler.httpGet;
    const path = action.path ?? '';
    const port = resolvePort(action.port, container);
    try {
      if (port === undefined)
        throw new Error(`couldn't find port: ${String(action.port)} in ${container.name}`);
      const scheme = (action.scheme ?? 'HTTP').toLowerCase();
      const host = action.host || context.podIP;
      const url = new URL(`${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`);
      url.pathname = path.startsWith('/') ? path.split('?')[0]! : `/${path.split('?')[0]}`;
      if (path.includes('?')) url.search = path.slice(path.indexOf('?'));
      const headers: Record<string, string> = {
        'User-Agent': `kube-lifecycle/${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}`,
        Accept: '*/*',
      };
      for (const header of action.httpHeaders ?? []) headers[header.name] = header.value;
      await httpGet(url, headers, context.signal);
      return undefined;
    } catch (failure) {
      const error = failure instanceof Error ? failure.message : String(failure);
      return `HTTP lifecycle hook (${path}) for Container ${goQuote(container.name)} in Pod ${goQuote(formatPod(pod))} failed - error: ${error}`;
    }
  }
  if (handler.sleep) {
    await sleep(handler.sleep.seconds * 1000, context.signal);
    return undefined;
  }
  return `Unknown handler ${JSON.stringify(handler)}`;
}
