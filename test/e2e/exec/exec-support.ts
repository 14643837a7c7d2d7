// Helpers of the exec e2e suite: kubectl binaries, the apiserver's pod stream counters (which
// transport a kubectl used, and how many streams are still open), a terminal in a tmux pane,
// checksums, and counting processes in a node container.
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';

/** kubectl.1.28 (SPDY only), installed next to the kubectl on the PATH. */
export function kubectl128(): string {
  const dir = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'kubectl')));
  if (!dir) throw new Error('kubectl is not on the PATH');
  return join(dirname(realpathSync(join(dir, 'kubectl'))), 'kubectl.1.28');
}

export type Transport = 'spdy' | 'websocket-v5' | 'websocket-spdy-tunnel' | 'websocket';

/** tkube_apiserver_pod_streams_total for one subresource and transport, from /metrics text. */
export function podStreamsStarted(metrics: string, subresource: string, transport: Transport): number {
  const found = new RegExp(
    `tkube_apiserver_pod_streams_total\\{subresource="${subresource}",transport="${transport}"\\} (\\d+)`,
  ).exec(metrics);
  return Number(found?.[1] ?? 0);
}

/** tkube_apiserver_pod_streams_open from /metrics text. */
export function podStreamsOpen(metrics: string): number {
  return Number(/tkube_apiserver_pod_streams_open (\d+)/.exec(metrics)?.[1] ?? Number.NaN);
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Processes named `name` in a node container (the pods' processes are its descendants). */
export async function processesInNode(node: string, name: string): Promise<number> {
  const { stdout } = await execa('docker', ['exec', node, 'ps', '-eo', 'comm=']);
  return stdout.split('\n').filter((line) => line.trim() === name).length;
}

/** A tmux server of its own (its socket named after the suite) running one command in a pane. */
export class TmuxPane {
  private constructor(private readonly socket: string) {}

  static async start(socket: string, command: string, env: Record<string, string>, width = 100, height = 30) {
    const pane = new TmuxPane(socket);
    await execa(
      'tmux',
      ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', String(width), '-y', String(height), command],
      {
        env: { ...process.env, ...env },
      },
    );
    return pane;
  }

  async type(keys: string): Promise<void> {
    await execa('tmux', ['-L', this.socket, 'send-keys', '-t', 'main', keys, 'Enter']);
  }

  async resize(width: number, height: number): Promise<void> {
    await execa('tmux', [
      '-L',
      this.socket,
      'resize-window',
      '-t',
      'main',
      '-x',
      String(width),
      '-y',
      String(height),
    ]);
  }

  async screen(): Promise<string> {
    return (await execa('tmux', ['-L', this.socket, 'capture-pane', '-p', '-t', 'main'], { reject: false }))
      .stdout;
  }

  async stop(): Promise<void> {
    await execa('tmux', ['-L', this.socket, 'kill-server'], { reject: false });
  }
}
