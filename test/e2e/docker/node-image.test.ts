import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLocalBaseImage } from '../../../src/providers/docker/image/base-image.js';
import {
  DEFAULT_TEMPLATES_DIR,
  nodeImageTag,
  readNodeTemplates,
  templateDigests,
} from '../../../src/providers/docker/image/inputs.js';
import { ensureNodeImage } from '../../../src/providers/docker/image/node-image.js';
import {
  findOfflineSources,
  offlineSourceIdentities,
} from '../../../src/providers/docker/image/offline-builder.js';
import { docker } from './support.js';

// Templates with one extra file hash to a tag of their own: these tests build for real on
// every run instead of finding the image an earlier run left.
async function templatesCopy(extra: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tkube-e2e-templates-'));
  await cp(DEFAULT_TEMPLATES_DIR, dir, { recursive: true });
  for (const [name, content] of Object.entries(extra)) await writeFile(join(dir, name), content);
  return dir;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup().catch(() => undefined);
});

describe('node image', () => {
  it('builds offline, passes its smoke test, and is found by its inputs hash the second time', async () => {
    const templatesDir = await templatesCopy({ 'e2e-marker': `${Date.now()}\n` });
    cleanups.push(() => rm(templatesDir, { recursive: true, force: true }));
    const steps: string[] = [];

    const built = await ensureNodeImage({
      builder: 'offline',
      templatesDir,
      docker,
      onProgress: (s) => steps.push(s),
    });
    cleanups.push(() => docker.getImage(built.id).remove({ force: true }));

    expect(built.cached).toBe(false);
    expect(built.builder).toBe('offline');
    expect(built.tag).toMatch(/^tkube\.local\/node:[0-9a-f]{12}$/);
    expect(steps).toEqual(
      expect.arrayContaining(['importing the node image', 'smoke testing the node image']),
    );
    const info = await docker.getImage(built.tag).inspect();
    expect(info.Id).toBe(built.id);
    expect(info.Config.Entrypoint).toEqual(['/usr/local/bin/tkube-entrypoint']);

    const again = await ensureNodeImage({ builder: 'offline', templatesDir, docker });
    expect(again).toMatchObject({ tag: built.tag, id: built.id, cached: true });
    expect(again.durationMs).toBeLessThan(2_000);
  }, 120_000);

  it('refuses an image whose containerd cannot start, and keeps no image of it', async () => {
    const templatesDir = await templatesCopy({ 'e2e-marker': `${Date.now()}\n` });
    cleanups.push(() => rm(templatesDir, { recursive: true, force: true }));
    await writeFile(join(templatesDir, 'containerd.toml'), 'version = 2\n[grpc\n');

    const sources = await findOfflineSources(process.execPath);
    const tag = nodeImageTag({
      builder: 'offline',
      templates: templateDigests(await readNodeTemplates(templatesDir)),
      sources: await offlineSourceIdentities(sources),
    });

    const build = ensureNodeImage({ builder: 'offline', templatesDir, docker });
    await expect(build).rejects.toThrow(/failed its smoke test[\s\S]*containerd exited at start/);
    await expect(docker.getImage(tag).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 120_000);

  // Needs a local base image (never pulled) and Debian's mirrors for apt: skipped without them.
  // TKUBE_E2E_BASE_IMAGE names a base of any name (e.g. a debootstrap tree `docker import`ed).
  it('builds with the Dockerfile on a local Debian/Node.js base image when one is present', async (context) => {
    const preferred = process.env.TKUBE_E2E_BASE_IMAGE || undefined;
    const base = await findLocalBaseImage(docker, preferred);
    if (base === undefined) {
      context.skip('no local debian:bookworm* or node:<20+>-bookworm* image to build on');
      return;
    }
    const built = await ensureNodeImage({ builder: 'dockerfile', baseImage: base.reference, docker });
    expect(built.builder).toBe('dockerfile');
    expect(built.tag).toMatch(/^tkube\.local\/node:[0-9a-f]{12}$/);
    const info = await docker.getImage(built.tag).inspect();
    expect(info.Config.Labels?.['dev.tkube.node-image.builder']).toBe('dockerfile');
  }, 600_000);
});
