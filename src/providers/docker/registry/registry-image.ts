// The local registry's image, built offline as the node image is: the `docker-registry` program
// of Debian's docker-registry package (CNCF distribution 2.8, what kind's and k3d's `registry:2`
// runs), its shared libraries and a configuration file, `docker import`ed. Its tag is a hash of
// those inputs, so it is built once per host program and found again by name.
import { createHash } from 'node:crypto';
import type Dockerode from 'dockerode';
import { readEngineMessages } from '../engine-stream.js';
import { DockerProviderError, isNotFound } from '../errors.js';
import { findExecutable, sharedLibraries } from '../image/host-binaries.js';
import { fileIdentity } from '../image/inputs.js';
import { Rootfs } from '../image/rootfs.js';

export const REGISTRY_IMAGE_REPOSITORY = 'tkube.local/registry';
export const REGISTRY_PROGRAM = 'docker-registry';
/** The port the registry listens on inside its container (the registry's default). */
export const REGISTRY_CONTAINER_PORT = 5000;
const CONFIG_PATH = '/etc/docker/registry/config.yml';
const STORAGE_DIR = '/var/lib/registry';

/** distribution's configuration: filesystem storage, plain HTTP, no auth (a local registry). */
export const REGISTRY_CONFIG = `version: 0.1
log:
  fields:
    service: registry
storage:
  filesystem:
    rootdirectory: ${STORAGE_DIR}
  delete:
    enabled: true
http:
  addr: :${REGISTRY_CONTAINER_PORT}
  headers:
    X-Content-Type-Options: [nosniff]
`;

export const REGISTRY_COMMAND = [`/usr/bin/${REGISTRY_PROGRAM}`, 'serve', CONFIG_PATH];

/** The registry image's tag, built first when no image has it. */
export async function ensureRegistryImage(docker: Dockerode): Promise<string> {
  const program = await findExecutable(REGISTRY_PROGRAM);
  if (program === undefined) {
    throw new DockerProviderError(
      `the local registry needs the host program ${REGISTRY_PROGRAM} (Debian package docker-registry); install it, e.g. apt-get install docker-registry`,
    );
  }
  const tag = `${REGISTRY_IMAGE_REPOSITORY}:${createHash('sha256')
    .update(JSON.stringify([await fileIdentity(program), REGISTRY_CONFIG, REGISTRY_COMMAND]))
    .digest('hex')
    .slice(0, 12)}`;
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const rootfs = new Rootfs();
  await rootfs.copyFileFromHost(program, REGISTRY_COMMAND[0]!, 0o755);
  for (const library of await sharedLibraries([program])) await rootfs.copyFromHost(library);
  rootfs.addFile(CONFIG_PATH, REGISTRY_CONFIG);
  rootfs.addDirectory(STORAGE_DIR);
  rootfs.addDirectory('/tmp', 0o1777);
  const [repo, version] = tag.split(':') as [string, string];
  const response = await docker.importImage(rootfs.tar(), {
    repo,
    tag: version,
    changes: [
      `ENTRYPOINT ${JSON.stringify(REGISTRY_COMMAND)}`,
      `EXPOSE ${REGISTRY_CONTAINER_PORT}`,
      `VOLUME ["${STORAGE_DIR}"]`,
      'LABEL dev.tkube.image="registry"',
    ],
  });
  await readEngineMessages(response, `importing ${tag}`);
  return tag;
}
