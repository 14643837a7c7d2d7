import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StaticPodSource } from '../../../src/agent/kubelet/static/file-source.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';

const manifest = (name: string, seconds = 3600) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: app, image: busybox:1, command: [sleep, "${seconds}"]}]\n`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tkube-static-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function source(extra: { logs?: string[]; now?: () => Date } = {}) {
  const changes: (readonly Pod[])[] = [];
  const src = new StaticPodSource({
    path: dir,
    nodeName: 'n1',
    onChange: (pods) => changes.push(pods),
    log: (message) => extra.logs?.push(message),
    ...(extra.now && { now: extra.now }),
  });
  return { src, changes, names: () => changes.at(-1)?.map((pod) => pod.metadata?.name) };
}

describe('the static pod file source', () => {
  it('reads each regular, visible file as one pod, annotated with its source and first sighting', async () => {
    await writeFile(join(dir, 'b.yaml'), manifest('b'));
    await writeFile(
      join(dir, 'a.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      }),
    );
    await writeFile(join(dir, '.hidden.yaml'), manifest('hidden'));
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'c.yaml'), manifest('c'));
    const { src, changes, names } = source({ now: () => new Date('2025-01-02T03:04:05.120Z') });
    await src.load();
    expect(names()).toEqual(['a-n1', 'b-n1']);
    const annotations = changes[0]![0]!.metadata?.annotations;
    expect(annotations?.['kubernetes.io/config.source']).toBe('file');
    expect(annotations?.['kubernetes.io/config.seen']).toBe('2025-01-02T03:04:05.12Z');
    // An unchanged directory is no change.
    await src.load();
    expect(changes).toHaveLength(1);
  });

  it('follows edits and removals, and logs a bad manifest once', async () => {
    const logs: string[] = [];
    const { src, changes, names } = source({ logs });
    await src.load();
    // The first read reports even an empty directory: the kubelet then knows the set.
    expect(changes).toEqual([[]]);
    await writeFile(join(dir, 'web.yaml'), manifest('web'));
    await writeFile(join(dir, 'bad.yaml'), 'kind: Pod\napiVersion: v1\n');
    await src.load();
    const first = changes.at(-1)![0]!.metadata?.uid;
    expect(names()).toEqual(['web-n1']);
    await src.load();
    expect(logs.filter((line) => line.includes('bad.yaml'))).toHaveLength(1);
    await writeFile(join(dir, 'web.yaml'), manifest('web', 60));
    await src.load();
    expect(changes.at(-1)![0]!.metadata?.uid).not.toBe(first);
    await unlink(join(dir, 'web.yaml'));
    await src.load();
    expect(changes.at(-1)).toEqual([]);
  });

  it('sees a new manifest through its watch, without waiting for the resync', async () => {
    const { src, names } = source();
    await src.load();
    const abort = new AbortController();
    src.start(abort.signal);
    try {
      await writeFile(join(dir, 'web.yaml'), manifest('web'));
      const deadline = Date.now() + 3000;
      while (names()?.[0] !== 'web-n1' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(names()).toEqual(['web-n1']);
    } finally {
      abort.abort();
    }
  });

  it('treats a missing directory as no static pods', async () => {
    const changes: (readonly Pod[])[] = [];
    const src = new StaticPodSource({
      path: join(dir, 'absent'),
      nodeName: 'n1',
      onChange: (p) => changes.push(p),
    });
    await src.load();
    expect(changes).toEqual([[]]);
  });
});
