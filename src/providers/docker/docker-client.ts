// One way to reach the Docker engine: dockerode with DOCKER_HOST honoured, and a check that
// turns "cannot connect" into a DockerUnavailableError saying how to start Docker.
import Dockerode from 'dockerode';
import { DockerUnavailableError } from './errors.js';

export function createDockerClient(): Dockerode {
  return new Dockerode();
}

/** Where the client connects, as the docker CLI spells it (unix:///var/run/docker.sock). */
export function dockerEndpoint(docker: Dockerode): string {
  const modem = docker.modem as { socketPath?: unknown; host?: unknown; port?: unknown; protocol?: unknown };
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`;
  if (typeof modem.socketPath === 'function') return 'unix:///var/run/docker.sock';
  return `${String(modem.protocol ?? 'tcp')}://${String(modem.host)}:${String(modem.port)}`;
}

/** Resolves when the engine answers; otherwise throws DockerUnavailableError. */
export async function assertDockerAvailable(docker: Dockerode): Promise<void> {
  try {
    await docker.ping();
  } catch (error) {
    throw dockerUnavailable(docker, error);
  }
}

export function dockerUnavailable(docker: Dockerode, error: unknown): DockerUnavailableError {
  const endpoint = dockerEndpoint(docker);
  const code = systemErrorCode(error);
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  if (code === 'EACCES') {
    return new DockerUnavailableError(
      `Cannot connect to the Docker daemon at ${endpoint}: permission denied`,
      'add your user to the "docker" group (then log in again) or run as root',
    );
  }
  return new DockerUnavailableError(
    `Cannot connect to the Docker daemon at ${endpoint} (${detail})`,
    'is Docker running? Start it (`sudo systemctl start docker`, or `sudo dockerd &` where there is no ' +
      'systemd) or point DOCKER_HOST at a running engine',
  );
}

function systemErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** True when the error means the engine is unreachable (as opposed to refusing a request). */
export function isConnectionError(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES' || code === 'ECONNRESET';
}
