import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEngineMessages } from '../../../src/providers/docker/engine-stream.js';
import { parseCtrImageList } from '../../../src/providers/docker/image-load.js';
import { tarStream } from '../../../src/providers/docker/tar.js';
import { docker, e2eClusterName, e2eSubnet, provider, sharedNodeImage } from './support.js';

const cluster = e2eClusterName('load');
const net = e2eSubnet(21);
const tiny = `tkube-e2e/tiny:${randomBytes(3).toString('hex')}`;

/** A tiny local image: busybox-static as its only file, `docker import`ed (no registry). */
async function buildTinyImage(reference: string, build = 1): Promise<string> {
  const [repo, tag] = reference.split(':') as [string, string];
  const { size } = await import('node:fs/promises').then((fs) => fs.stat('/bin/busybox'));
  const response = await docker.importImage(
    tarStream([
      { type: 'directory', path: 'bin', mode: 0o755 },
      { type: 'hostFile', path: 'bin/busybox', mode: 0o755, source: '/bin/busybox', size },
      { type: 'symlink', path: 'bin/sh', target: 'busybox' },
    ]),
    { repo, tag, changes: ['CMD ["/bin/sh"]', `LABEL build=${build}`] },
  );
  await readEngineMessages(response, 'importing the tiny image');
  return (await docker.getImage(reference).inspect()).Id;
}

let tinyId = '';

beforeAll(async () => {
  const [image, id] = await Promise.all([sharedNodeImage(), buildTinyImage(tiny)]);
  tinyId = id;
  await provider.ensureNetwork({ cluster, subnet: net.subnet, gateway: net.gateway });
  for (const index of [0, 1]) {
    await provider.createNode({
      cluster,
      index,
      role: index === 0 ? 'control-plane' : 'worker',
      image: image.tag,
      ip: net.ip(10 + index),
    });
  }
  await Promise.all([0, 1].map((index) => provider.waitForContainerd(`${cluster}-node-${index}`)));
}, 120_000);

afterAll(async () => {
  await provider.removeCluster(cluster);
  await docker
    .getImage(tiny)
    .remove({ force: true })
    .catch(() => undefined);
});

describe('docker provider: load images', () => {
  it('imports a local image into every node, then skips nodes that hold it', async () => {
    const nodes = [`${cluster}-node-0`, `${cluster}-node-1`];
    const first = await provider.loadImages(cluster, [tiny]);
    expect(first).toEqual({
      images: [{ reference: tiny, id: tinyId }],
      nodes: nodes.map((node) => ({ node, imported: [tiny], skipped: [] })),
    });
    for (const node of nodes) {
      const listed = await provider.exec(node, ['ctr', '--namespace', 'k8s.io', 'images', 'ls', '-q']);
      expect(listed.stdout.split('\n')).toEqual(expect.arrayContaining([`docker.io/${tiny}`, tinyId]));
    }

    const second = await provider.loadImages(cluster, [tiny]);
    expect(second.nodes).toEqual(nodes.map((node) => ({ node, imported: [], skipped: [tiny] })));
  });

  it('re-imports where the node holds an older image under the same name', async () => {
    const node = `${cluster}-node-1`;
    // Point the node's name at the pause image: same name, different id.
    const retag = await provider.exec(node, [
      'sh',
      '-c',
      `ctr -n k8s.io images rm docker.io/${tiny} >/dev/null && ctr -n k8s.io images tag tkube.local/pause:1 docker.io/${tiny}`,
    ]);
    expect(retag.exitCode, retag.stderr).toBe(0);
    const result = await provider.loadImages(cluster, [tiny]);
    expect(result.nodes).toEqual([
      { node: `${cluster}-node-0`, imported: [], skipped: [tiny] },
      { node, imported: [tiny], skipped: [] },
    ]);
  });

  it('loads a rebuilt image under a tag the nodes already hold (the edit-build-load loop)', async () => {
    const nodes = [`${cluster}-node-0`, `${cluster}-node-1`];
    const rebuiltId = await buildTinyImage(tiny, 2);
    expect(rebuiltId).not.toBe(tinyId);
    const result = await provider.loadImages(cluster, [tiny]);
    expect(result).toEqual({
      images: [{ reference: tiny, id: rebuiltId }],
      nodes: nodes.map((node) => ({ node, imported: [tiny], skipped: [] })),
    });
    for (const node of nodes) {
      const listed = await provider.exec(node, ['ctr', '--namespace', 'k8s.io', 'images', 'ls']);
      const images = parseCtrImageList(listed.stdout);
      // The name now points at the rebuilt image, which the CRI plugin also lists by id.
      expect(images.get(`docker.io/${tiny}`)).toBeDefined();
      expect(images.get(`docker.io/${tiny}`)).toBe(images.get(rebuiltId));
    }
  });

  it('says so when an image is not present locally', async () => {
    await expect(provider.loadImages(cluster, ['tkube-e2e/absent:1'])).rejects.toThrow(
      'image "tkube-e2e/absent:1" is not present locally',
    );
  });
});
