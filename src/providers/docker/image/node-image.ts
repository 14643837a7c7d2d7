// The node image: found by the hash of its inputs, built when missing (or forced), smoke
// tested before anyone uses it.
import type Dockerode from 'dockerode';
import { assertDockerAvailable, createDockerClient } from '../docker-client.js';
import { isNotFound } from '../errors.js';
import { detectNodeSecurity } from '../security.js';
import { type BaseImage, findLocalBaseImage } from './base-image.js';
import { withBuildLock } from './build-lock.js';
import { buildWithDockerfile } from './dockerfile-builder.js';
import {
  DEFAULT_TEMPLATES_DIR,
  fileIdentity,
  type NodeImageBuilder,
  type NodeImageInputs,
  nodeImageTag,
  readNodeTemplates,
  templateDigests,
} from './inputs.js';
import {
  assembleOfflineRootfs,
  findOfflineSources,
  importRootfs,
  type OfflineSources,
  offlineSourceIdentities,
} from './offline-builder.js';
import { pauseImageArchive } from './pause-image.js';
import { smokeTestNodeImage } from './smoke-test.js';

export type { NodeImageBuilder } from './inputs.js';

export interface NodeImageOptions {
  /** `auto` (default): dockerfile when a local Debian/Node.js base image exists, else offline. */
  builder?: NodeImageBuilder | 'auto';
  /** Build even when an image with the same inputs exists. */
  force?: boolean;
  /** The dockerfile builder's base image (default: the best local Debian/Node.js image). */
  baseImage?: string;
  templatesDir?: string;
  /** The Node.js put into the image when it has none (default: the one running tkube). */
  nodeBinary?: string;
  docker?: Dockerode;
  /** One short line per build step ("compiling the pause image", ...). */
  onProgress?: (message: string) => void;
}

export interface NodeImage {
  /** tkube.local/node:<hash of the inputs>. */
  tag: string;
  id: string;
  builder: NodeImageBuilder;
  /** True when the image existed and nothing was built. */
  cached: boolean;
  durationMs: number;
  sizeBytes: number;
}

type Plan =
  | { builder: 'offline'; tag: string; sources: OfflineSources }
  | { builder: 'dockerfile'; tag: string; base: BaseImage };

export async function ensureNodeImage(options: NodeImageOptions = {}): Promise<NodeImage> {
  const started = Date.now();
  const docker = options.docker ?? createDockerClient();
  const progress = options.onProgress ?? (() => undefined);
  await assertDockerAvailable(docker);
  const templatesDir = options.templatesDir ?? DEFAULT_TEMPLATES_DIR;
  const templates = await readNodeTemplates(templatesDir);
  const nodeBinary = options.nodeBinary ?? process.execPath;

  const plans = await planBuilds(docker, options, templates, nodeBinary);
  let lastError: unknown;
  for (const plan of plans) {
    const existing = options.force ? undefined : await inspect(docker, plan.tag);
    if (existing) return result(plan, existing, true, started);
    try {
      const image = await withBuildLock(plan.tag, async () => {
        const built = options.force ? undefined : await inspect(docker, plan.tag);
        if (built) return { info: built, cached: true };
        return {
          info: await build(docker, plan, templates, `${templatesDir}/pause.c`, nodeBinary, progress),
          cached: false,
        };
      });
      return result(plan, image.info, image.cached, started);
    } catch (error) {
      lastError = error;
      if (plan !== plans.at(-1))
        progress(`the ${plan.builder} builder failed (${firstLine(error)}); trying the next`);
    }
  }
  throw lastError;
}

/** The builds to try in order: one, or in auto mode dockerfile then offline. */
async function planBuilds(
  docker: Dockerode,
  options: NodeImageOptions,
  templates: Map<string, Buffer>,
  nodeBinary: string,
): Promise<Plan[]> {
  const digests = templateDigests(templates);
  const offline = async (): Promise<Plan> => {
    const sources = await findOfflineSources(nodeBinary);
    const tag = nodeImageTag({
      builder: 'offline',
      templates: digests,
      sources: await offlineSourceIdentities(sources),
    });
    return { builder: 'offline', tag, sources };
  };
  const dockerfile = async (base: BaseImage): Promise<Plan> => {
    const sources: NodeImageInputs['sources'] = { base: base.id };
    if (!base.hasNode) sources.node = await fileIdentity(nodeBinary);
    return {
      builder: 'dockerfile',
      tag: nodeImageTag({ builder: 'dockerfile', templates: digests, sources }),
      base,
    };
  };
  const builder = options.builder ?? 'auto';
  if (builder === 'offline') return [await offline()];
  const base = await findLocalBaseImage(docker, options.baseImage);
  if (builder === 'dockerfile') {
    if (base === undefined) {
      throw new Error(
        'the dockerfile builder needs a local Debian bookworm or node:<20+>-bookworm base image and none is ' +
          'present; pull one (docker pull debian:bookworm-slim) or use --builder offline',
      );
    }
    return [await dockerfile(base)];
  }
  if (base === undefined) return [await offline()];
  const plans = [await dockerfile(base)];
  // Offline as the fallback where the host has its programs; the Dockerfile needs Debian's mirrors.
  const fallback = await offline().catch(() => undefined);
  return fallback ? [...plans, fallback] : plans;
}

async function build(
  docker: Dockerode,
  plan: Plan,
  templates: Map<string, Buffer>,
  pauseSource: string,
  nodeBinary: string,
  progress: (message: string) => void,
): Promise<Dockerode.ImageInspectInfo> {
  const previous = await inspect(docker, plan.tag);
  progress('compiling the pause image');
  const pauseArchive = await pauseImageArchive(docker, pauseSource);
  if (plan.builder === 'offline') {
    progress('collecting host programs and libraries');
    const rootfs = await assembleOfflineRootfs(plan.sources, templates, pauseArchive);
    progress('importing the node image');
    await importRootfs(docker, rootfs, plan.tag);
  } else {
    progress(`building on ${plan.base.reference}`);
    await buildWithDockerfile(docker, {
      tag: plan.tag,
      base: plan.base,
      templates,
      pauseArchive,
      nodeBinary,
      onProgress: progress,
    });
  }
  const info = await docker.getImage(plan.tag).inspect();
  progress('smoke testing the node image');
  try {
    await smokeTestNodeImage(docker, plan.tag, await detectNodeSecurity(docker));
  } catch (error) {
    // A broken image must not be found as cached next time.
    await docker
      .getImage(info.Id)
      .remove({ force: true })
      .catch(() => undefined);
    throw error;
  }
  // A forced rebuild leaves the image it replaced untagged.
  if (previous && previous.Id !== info.Id)
    await docker
      .getImage(previous.Id)
      .remove()
      .catch(() => undefined);
  return info;
}

async function inspect(
  docker: Dockerode,
  reference: string,
): Promise<Dockerode.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(reference).inspect();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function result(plan: Plan, info: Dockerode.ImageInspectInfo, cached: boolean, started: number): NodeImage {
  return {
    tag: plan.tag,
    id: info.Id,
    builder: plan.builder,
    cached,
    durationMs: Date.now() - started,
    sizeBytes: info.Size,
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n', 1)[0] ?? '';
}
