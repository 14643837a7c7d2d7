import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TEMPLATES_DIR,
  nodeImageTag,
  readNodeTemplates,
  templateDigests,
} from '../../../src/providers/docker/image/inputs.js';
import { tempDir } from '../../support/temp.js';

describe('node image inputs', () => {
  const base = { builder: 'offline' as const, templates: { 'a.sh': '1' }, sources: { runc: 'x', node: 'y' } };

  it('names the image by a hash of its inputs, independent of key order', () => {
    const tag = nodeImageTag(base);
    expect(tag).toMatch(/^tkube\.local\/node:[0-9a-f]{12}$/);
    expect(nodeImageTag({ ...base, sources: { node: 'y', runc: 'x' } })).toBe(tag);
  });

  it('changes the tag when any input changes', () => {
    const tag = nodeImageTag(base);
    expect(nodeImageTag({ ...base, builder: 'dockerfile' })).not.toBe(tag);
    expect(nodeImageTag({ ...base, templates: { 'a.sh': '2' } })).not.toBe(tag);
    expect(nodeImageTag({ ...base, sources: { runc: 'x', node: 'z' } })).not.toBe(tag);
  });

  it('reads the repository templates and hashes their content', async () => {
    const templates = await readNodeTemplates(DEFAULT_TEMPLATES_DIR);
    expect([...templates.keys()]).toEqual(['Dockerfile', 'containerd.toml', 'entrypoint.sh', 'pause.c']);
    const dir = tempDir();
    await writeFile(join(dir, 'one'), 'content');
    expect(templateDigests(await readNodeTemplates(dir))).toEqual({
      one: 'ed7002b439e9ac845f22357d822bac1444730fbdb6016d3ec9432297b9ec9f73',
    });
  });
});
