// The pod sandbox image tkube.local/pause:1: templates/node/pause.c compiled static, imported
// into the host's engine and saved as an archive that nodes import into containerd at start.
// A dotted registry name keeps containerd from rewriting it to docker.io/library/...
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { execa } from 'execa';
import { readAll, readEngineMessages } from '../engine-stream.js';
import { isNotFound } from '../errors.js';
import { tarStream } from '../tar.js';

export const PAUSE_IMAGE = 'tkube.local/pause:1';
const SOURCE_LABEL = 'dev.tkube.pause-source';

/**
 * The `docker save` archive of the pause image, built first when the engine lacks an image
 * made from this very source.
 */
export async function pauseImageArchive(docker: Dockerode, source: string): Promise<Buffer> {
  const digest = createHash('sha256')
    .update(await readFile(source))
    .digest('hex');
  const existing = await docker
    .getImage(PAUSE_IMAGE)
    .inspect()
    .catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  if (existing?.Config?.Labels?.[SOURCE_LABEL] !== digest) {
    await buildPauseImage(docker, source, digest);
    // The image it replaces would linger untagged.
    if (existing)
      await docker
        .getImage(existing.Id)
        .remove()
        .catch(() => undefined);
  }
  return readAll(await docker.getImage(PAUSE_IMAGE).get());
}

async function buildPauseImage(docker: Dockerode, source: string, digest: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tkube-pause-'));
  try {
    const binary = join(dir, 'pause');
    await compileStatic(source, binary);
    const size = (await stat(binary)).size;
    const [repo, tag] = PAUSE_IMAGE.split(':') as [string, string];
    const response = await docker.importImage(
      tarStream([{ type: 'hostFile', path: 'pause', mode: 0o755, source: binary, size }]),
      {
        repo,
        tag,
        // USER: the upstream pause image's; nothing in the sandbox needs root.
        changes: ['ENTRYPOINT ["/pause"]', 'USER 65535:65535', `LABEL ${SOURCE_LABEL}=${digest}`],
      },
    );
    await readEngineMessages(response, `importing ${PAUSE_IMAGE}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function compileStatic(source: string, output: string): Promise<void> {
  const result = await execa('gcc', ['-Os', '-static', '-s', '-o', output, source], { reject: false });
  if (result.exitCode === 0) return;
  const notInstalled = (result as { code?: string }).code === 'ENOENT';
  throw new Error(
    notInstalled
      ? 'gcc is not installed; the pause image is compiled from templates/node/pause.c: install gcc and ' +
          'libc6-dev (apt-get install gcc libc6-dev)'
      : `compiling ${source} failed: ${result.stderr || result.shortMessage}`,
  );
}
