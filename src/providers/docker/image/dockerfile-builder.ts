// The Dockerfile builder: templates/node/Dockerfile on a local Debian/Node.js base image, with
// a build context assembled in memory (see the Dockerfile for what it holds).
import { stat } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { type EngineMessage, readEngineMessages } from '../engine-stream.js';
import { type TarEntry, tarStream } from '../tar.js';
import type { BaseImage } from './base-image.js';
import { NODE_IMAGE_LABELS } from './layout.js';

export interface DockerfileBuild {
  tag: string;
  base: BaseImage;
  templates: Map<string, Buffer>;
  pauseArchive: Buffer;
  /** Copied in when the base image has no Node.js. */
  nodeBinary: string;
  onProgress?: (message: string) => void;
}

export async function buildWithDockerfile(docker: Dockerode, build: DockerfileBuild): Promise<string> {
  const context = await buildContext(build);
  const response = await docker.buildImage(tarStream(context), {
    t: build.tag,
    buildargs: { BASE_IMAGE: build.base.reference },
    labels: { ...NODE_IMAGE_LABELS, 'dev.tkube.node-image.builder': 'dockerfile' },
    rm: true,
    forcerm: true,
  });
  await readEngineMessages(response, `building ${build.tag}`, (message) =>
    reportStep(message, build.onProgress),
  );
  return (await docker.getImage(build.tag).inspect()).Id;
}

async function buildContext(build: DockerfileBuild): Promise<TarEntry[]> {
  const file = (path: string, mode = 0o644): TarEntry => {
    const content = build.templates.get(path);
    if (content === undefined) throw new Error(`templates/node/${path} is missing`);
    return { type: 'file', path, mode, content };
  };
  const entries: TarEntry[] = [
    file('Dockerfile'),
    file('containerd.toml'),
    file('entrypoint.sh', 0o755),
    { type: 'file', path: 'pause.tar', mode: 0o644, content: build.pauseArchive },
    { type: 'directory', path: 'rootfs', mode: 0o755 },
  ];
  if (!build.base.hasNode) {
    for (const dir of ['rootfs/usr', 'rootfs/usr/local', 'rootfs/usr/local/bin']) {
      entries.push({ type: 'directory', path: dir, mode: 0o755 });
    }
    const size = (await stat(build.nodeBinary)).size;
    entries.push({
      type: 'hostFile',
      path: 'rootfs/usr/local/bin/node',
      mode: 0o755,
      source: build.nodeBinary,
      size,
    });
  }
  return entries;
}

/** "Step 2/9 : RUN apt-get ..." lines become progress messages. */
function reportStep(message: EngineMessage, onProgress?: (message: string) => void): void {
  const step = /^Step (\d+\/\d+) : (.*)$/m.exec(message.stream ?? '');
  if (step) onProgress?.(`step ${step[1]}: ${step[2]!.slice(0, 60)}`);
}
