// `tkube load image`: images from the host's engine into every node's containerd. One
// `docker save` for all nodes, imports in parallel, and nodes that already hold an image (same
// id) skip it. containerd's CRI plugin names each image also by its config digest, which is
// Docker's image id: comparing the two tells whether a node holds the same image.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type Dockerode from 'dockerode';
import type { ImageLoadOptions, ImageLoadResult, NodeInfo } from '../types.js';
import { DockerProviderError, isNotFound } from './errors.js';
import { execInContainer } from './exec.js';
import { normalizeImageReference, withDefaultTag } from './image-reference.js';

interface HostImage {
  reference: string;
  id: string;
  /** What `docker save` is given: the reference with its default tag. */
  saveName: string;
  /** The name the image gets in containerd. */
  containerdName: string;
}

/**
 * Imports, then waits until the CRI plugin lists every image by id (so kubelets see them).
 * Arguments are name/id pairs. The CRI plugin adds the by-id name only when it sees an image name
 * created: a name that already points at an older image (a rebuilt tag loaded again) is merely
 * updated and the new id never appears, so such names are removed before the import. Containers
 * of the old image keep it: they hold it by its own id.
 */
const IMPORT_SCRIPT = `set -e
held=$(ctr --namespace k8s.io images ls -q)
pairs="$*"
while [ "$#" -gt 1 ]; do
  if ! printf '%s\\n' "$held" | grep -qxF "$2" && printf '%s\\n' "$held" | grep -qxF "$1"; then
    ctr --namespace k8s.io images rm "$1" >/dev/null
  fi
  shift 2
done
ctr --namespace k8s.io images import --all-platforms - >/dev/null
set -- $pairs
while [ "$#" -gt 1 ]; do
  i=0
  until ctr --namespace k8s.io images ls -q | grep -qxF "$2"; do
    i=$((i + 1))
    if [ "$i" -gt 200 ]; then echo "containerd did not register image $2" >&2; exit 1; fi
    sleep 0.05
  done
  shift 2
done`;

export async function loadImagesIntoNodes(
  docker: Dockerode,
  nodes: NodeInfo[],
  references: string[],
  options: ImageLoadOptions = {},
): Promise<ImageLoadResult> {
  const images = await Promise.all(references.map((reference) => hostImage(docker, reference)));
  const plans = await Promise.all(
    nodes.map(async (node) => {
      const held = await heldImages(docker, node.name);
      const missing = images.filter((image) => !holds(held, image));
      return { node: node.name, missing };
    }),
  );
  const needed = images.filter((image) => plans.some((plan) => plan.missing.includes(image)));
  const results: ImageLoadResult['nodes'] = [];
  const report = (node: string, missing: HostImage[]) => {
    const result = {
      node,
      imported: missing.map((image) => image.reference),
      skipped: images.filter((image) => !missing.includes(image)).map((image) => image.reference),
    };
    results.push(result);
    options.onNode?.(result);
  };
  for (const plan of plans) if (plan.missing.length === 0) report(plan.node, []);
  if (needed.length > 0) {
    const dir = await mkdtemp(join(tmpdir(), 'tkube-load-'));
    try {
      const archive = join(dir, 'images.tar');
      await saveImages(docker, needed, archive, options.signal);
      await Promise.all(
        plans
          .filter((plan) => plan.missing.length > 0)
          .map(async (plan) => {
            await importArchive(docker, plan.node, archive, needed, options.signal);
            report(plan.node, plan.missing);
          }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const order = new Map(nodes.map((node, index) => [node.name, index]));
  results.sort((a, b) => (order.get(a.node) ?? 0) - (order.get(b.node) ?? 0));
  return { images: images.map(({ reference, id }) => ({ reference, id })), nodes: results };
}

async function hostImage(docker: Dockerode, reference: string): Promise<HostImage> {
  if (/^(sha256:)?[0-9a-f]{12,64}$/.test(reference)) {
    throw new DockerProviderError(
      `image "${reference}": give an image name, not an id (nodes find images by name)`,
    );
  }
  const saveName = withDefaultTag(reference);
  try {
    const info = await docker.getImage(saveName).inspect();
    return { reference, id: info.Id, saveName, containerdName: normalizeImageReference(saveName) };
  } catch (error) {
    if (isNotFound(error)) throw new DockerProviderError(`image "${reference}" is not present locally`);
    throw error;
  }
}

/** containerd image name → manifest digest, from `ctr images ls`. */
export function parseCtrImageList(output: string): Map<string, string> {
  const images = new Map<string, string>();
  for (const line of output.split('\n').slice(1)) {
    const [name, , digest] = line.trim().split(/\s+/);
    if (name && digest?.startsWith('sha256:')) images.set(name, digest);
  }
  return images;
}

async function heldImages(docker: Dockerode, node: string): Promise<Map<string, string>> {
  const result = await execInContainer(docker, node, ['ctr', '--namespace', 'k8s.io', 'images', 'ls']);
  if (result.exitCode !== 0) {
    throw new DockerProviderError(`cannot list the images of node ${node}: ${result.stderr.trim()}`);
  }
  return parseCtrImageList(result.stdout);
}

/** The node's name for the image and the name by id point to the same manifest. */
function holds(held: Map<string, string>, image: HostImage): boolean {
  const byName = held.get(image.containerdName);
  return byName !== undefined && byName === held.get(image.id);
}

async function saveImages(
  docker: Dockerode,
  images: HostImage[],
  file: string,
  signal?: AbortSignal,
): Promise<void> {
  const names = [...new Set(images.map((image) => image.saveName))];
  // dockerode has getImages (GET /images/get?names=...); @types/dockerode lacks it.
  const saver = docker as unknown as {
    getImages(options: { names: string[]; abortSignal?: AbortSignal }): Promise<NodeJS.ReadableStream>;
  };
  const stream = await saver.getImages({ names, abortSignal: signal });
  await pipeline(stream, createWriteStream(file), { signal });
}

async function importArchive(
  docker: Dockerode,
  node: string,
  archive: string,
  images: HostImage[],
  signal?: AbortSignal,
): Promise<void> {
  const pairs = images.flatMap((image) => [image.containerdName, image.id]);
  const result = await execInContainer(docker, node, ['sh', '-c', IMPORT_SCRIPT, 'sh', ...pairs], {
    input: createReadStream(archive),
    signal,
  });
  if (result.exitCode !== 0) {
    throw new DockerProviderError(
      `importing images into node ${node} failed: ${result.stderr.trim() || result.stdout.trim()}`,
    );
  }
}
