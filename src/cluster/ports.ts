import { createServer } from 'node:net';
import { ClusterError, errorCode } from './errors.js';

export const LOOPBACK_ADDRESS = '127.0.0.1';

/** A port nobody listens on at `host` right now, chosen by the kernel. */
export async function findFreePort(host = LOOPBACK_ADDRESS): Promise<number> {
  return listenOnce(host, 0);
}

/** Throws a ClusterError when `port` cannot be listened on at `host` (in use, or privileged). */
export async function assertPortAvailable(port: number, host = LOOPBACK_ADDRESS): Promise<void> {
  try {
    await listenOnce(host, port);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EADDRINUSE') {
      throw new ClusterError(
        `port ${port} is already in use on ${host}`,
        'choose another with --api-port, or leave it out to use a free port',
      );
    }
    if (code === 'EACCES') {
      throw new ClusterError(
        `port ${port} on ${host} needs privileges tkube does not have`,
        'choose a port above 1023 with --api-port',
      );
    }
    throw error;
  }
}

function listenOnce(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address !== null ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}
