// A private etcd server for tests and benchmarks (issue 30): Debian's `etcd` binary on free
// client and peer ports with a temporary data directory, stopped and removed afterwards.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './postgres-server.js';

const ETCD_PATHS = ['/usr/local/bin/etcd', '/usr/bin/etcd'];

function etcdBinary(): string | undefined {
  return ETCD_PATHS.find((path) => existsSync(path));
}

/** Why etcd tests cannot run here, or undefined when they can. */
export function etcdSkipReason(): string | undefined {
  return etcdBinary() ? undefined : 'etcd server binary not found: apt-get install etcd-server';
}

export interface EtcdServer {
  /** The client URL: http://127.0.0.1:PORT. */
  readonly endpoint: string;
  /** Stops the server (SIGTERM), keeping its data: the datastore going away. */
  pause(): Promise<void>;
  /** Starts it again on the same ports and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** PEM files for a server that speaks TLS to clients and asks them for a certificate. */
export interface EtcdServerTls {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export async function startEtcd(options: { tls?: EtcdServerTls } = {}): Promise<EtcdServer> {
  const binary = etcdBinary();
  if (!binary) throw new Error(etcdSkipReason());
  const dir = mkdtempSync('/tmp/tkube-etcd-');
  const clientPort = await freePort();
  const peerPort = await freePort();
  const tls = options.tls;
  const endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name=tkube-test',
    `--data-dir=${join(dir, 'data')}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=tkube-test=${peer}`,
    '--log-level=error',
    ...(tls
      ? [
          `--cert-file=${tls.certFile}`,
          `--key-file=${tls.keyFile}`,
          `--trusted-ca-file=${tls.caFile}`,
          '--client-cert-auth',
        ]
      : []),
  ];
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child = started;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`etcd exited (${started.exitCode}): ${stderr}`);
      if (tls ? await accepts(clientPort) : await healthy(endpoint)) return;
      if (Date.now() > deadline) throw new Error(`etcd did not become healthy: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const halt = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  await start();
  return {
    endpoint,
    pause: () => halt('SIGTERM'),
    resume: start,
    async stop() {
      await halt('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    return (await fetch(`${endpoint}/health`)).ok;
  } catch {
    return false; // not listening yet
  }
}

/** A TLS server with client-certificate auth answers /health only to a client certificate: a listening port must do. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
