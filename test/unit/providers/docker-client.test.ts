import Dockerode from 'dockerode';
import { describe, expect, it } from 'vitest';
import { assertDockerAvailable, dockerEndpoint } from '../../../src/providers/docker/docker-client.js';
import { DockerUnavailableError } from '../../../src/providers/docker/errors.js';
import { DockerProvider } from '../../../src/providers/docker/provider.js';

describe('docker not reachable', () => {
  const docker = new Dockerode({ socketPath: '/nonexistent/tkube/docker.sock' });

  it('says where it tried and how to start Docker, in one line', async () => {
    const failure = assertDockerAvailable(docker);
    await expect(failure).rejects.toBeInstanceOf(DockerUnavailableError);
    const error = (await failure.catch((e: unknown) => e)) as DockerUnavailableError;
    expect(error.message).toBe(
      'Cannot connect to the Docker daemon at unix:///nonexistent/tkube/docker.sock (ENOENT); is Docker running? ' +
        'Start it (`sudo systemctl start docker`, or `sudo dockerd &` where there is no systemd) or point ' +
        'DOCKER_HOST at a running engine',
    );
    expect(error.message).not.toContain('\n');
    expect(dockerEndpoint(docker)).toBe('unix:///nonexistent/tkube/docker.sock');
  });

  it('turns a lost engine in any provider operation into the same error', async () => {
    const provider = new DockerProvider(docker);
    await expect(provider.listNodes('dev')).rejects.toBeInstanceOf(DockerUnavailableError);
    await expect(provider.removeCluster('dev')).rejects.toBeInstanceOf(DockerUnavailableError);
  });
});
