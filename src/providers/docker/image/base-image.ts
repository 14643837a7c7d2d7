// The Dockerfile builder starts from a Debian or Node.js image already in the engine: it never
// pulls, so it works where a registry is reachable only if the user pulled one before.
import type Dockerode from 'dockerode';
import { isNotFound } from '../errors.js';

export interface BaseImage {
  reference: string;
  id: string;
  /** The image brings Node.js >= 20 itself (official node images set NODE_VERSION). */
  hasNode: boolean;
}

const MIN_NODE_MAJOR = 20;

/** Debian releases whose packages the Dockerfile installs (containerd 1.6+, runc, CNI plugins). */
const DEBIAN_TAG = /^(?:docker\.io\/)?(?:library\/)?debian:(?:bookworm|trixie|12|13|stable)(?:[-.][\w.-]*)?$/;
const NODE_TAG = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)[\w.-]*-(?:bookworm|trixie)(?:-slim)?$/;

/**
 * The base to build on: `preferred` when given (it must exist), else the best local match,
 * node images first (they bring Node.js), slim variants before full ones.
 */
export async function findLocalBaseImage(
  docker: Dockerode,
  preferred?: string,
): Promise<BaseImage | undefined> {
  if (preferred !== undefined) {
    const image = await inspectImage(docker, preferred);
    if (image === undefined) throw new Error(`base image "${preferred}" is not present locally`);
    return image;
  }
  const tags = (await docker.listImages()).flatMap((image) => image.RepoTags ?? []);
  const ranked = tags
    .map((tag) => ({ tag, rank: rank(tag) }))
    .filter((candidate): candidate is { tag: string; rank: number } => candidate.rank !== undefined)
    .sort((a, b) => b.rank - a.rank || (a.tag < b.tag ? -1 : 1));
  for (const { tag } of ranked) {
    const image = await inspectImage(docker, tag);
    if (image && (image.hasNode || DEBIAN_TAG.test(tag))) return image;
  }
  return undefined;
}

function rank(tag: string): number | undefined {
  const slim = tag.includes('slim') ? 1 : 0;
  const node = NODE_TAG.exec(tag);
  if (node) return Number(node[1]) >= MIN_NODE_MAJOR ? 1000 + Number(node[1]) * 2 + slim : undefined;
  if (DEBIAN_TAG.test(tag)) return 100 + slim;
  return undefined;
}

async function inspectImage(docker: Dockerode, reference: string): Promise<BaseImage | undefined> {
  try {
    const info = await docker.getImage(reference).inspect();
    const nodeVersion = (info.Config?.Env ?? [])
      .find((entry) => entry.startsWith('NODE_VERSION='))
      ?.slice('NODE_VERSION='.length);
    const major = Number(nodeVersion?.split('.')[0]);
    return { reference, id: info.Id, hasNode: Number.isInteger(major) && major >= MIN_NODE_MAJOR };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
