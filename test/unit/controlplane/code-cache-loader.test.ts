// The control plane bundle's loader: a CommonJS file runs as Node runs one, and its V8 code cache
// is written when missing or rejected, then taken by the next process.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'tkube-code-cache-'));
const file = join(dir, 'bundle.cjs');
const cacheFile = `${file}.cache`;
const runner = new URL('./fixtures/run-with-code-cache.ts', import.meta.url).pathname;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(
  cache = cacheFile,
  mode?: 'threads' | 'control-plane' | 'make',
): Promise<{ usedCache: boolean; run: unknown; exported?: unknown }> {
  // The control plane's process flag (controlplane/main.ts), which its threads clear for themselves.
  const flags = mode === 'threads' || mode === 'control-plane' ? ['--max-semi-space-size=32'] : [];
  const result = await execa(process.execPath, [
    ...flags,
    '--import',
    'tsx',
    runner,
    file,
    cache,
    ...(mode ? [mode] : []),
  ]);
  return result.stdout ? JSON.parse(result.stdout) : { usedCache: false, run: undefined };
}

writeFileSync(
  file,
  `module.exports = { ok: true };
globalThis.codeCacheRun = { dirname: __dirname, filename: __filename, sep: require('node:path').sep, exported: module.exports.ok };
// Enough code for V8 to keep a cache of it.
${Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i}; }`).join('\n')}`,
);

describe('runWithCodeCache', () => {
  it('runs a CommonJS file with require, module and its own paths, and writes its cache', async () => {
    expect(await run()).toEqual({
      usedCache: false,
      run: { dirname: dir, filename: file, sep: '/', exported: true },
      exported: true,
    });
    expect(readFileSync(cacheFile).length).toBeGreaterThan(0);
  });

  it('takes the cache in the next process, and replaces one V8 rejects', async () => {
    expect((await run()).usedCache).toBe(true);
    writeFileSync(cacheFile, Buffer.from('not a V8 code cache'));
    expect((await run()).usedCache).toBe(false);
    expect(readFileSync(cacheFile).toString()).not.toBe('not a V8 code cache');
    expect((await run()).usedCache).toBe(true);
  });

  it("keeps taking the cache when the control plane clears its threads' heap flag before compiling", async () => {
    const cache = join(dir, 'control-plane.cache');
    expect((await run(cache, 'control-plane')).usedCache).toBe(false);
    expect((await run(cache, 'control-plane')).usedCache).toBe(true);
    expect((await run(cache, 'control-plane')).usedCache).toBe(true);
  });

  it('has V8 reject a cache made after a thread changed the flags (why the entry clears them first)', async () => {
    const cache = join(dir, 'threads.cache');
    expect((await run(cache, 'threads')).usedCache).toBe(false);
    expect((await run(cache, 'threads')).usedCache).toBe(false);
  });

  it('makes a cache at once, as the agent build does, that the next process takes unchanged', async () => {
    const cache = join(dir, 'made.cache');
    await run(cache, 'make');
    const made = readFileSync(cache);
    expect(made.length).toBeGreaterThan(0);
    expect(await run(cache)).toMatchObject({ usedCache: true, exported: true });
    // Taken, so not written again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(cache).equals(made)).toBe(true);
  });

  it('still runs when the cache cannot be written', async () => {
    const unwritable = join(dir, 'missing-dir', 'bundle.cjs.cache');
    expect(await run(unwritable)).toMatchObject({ usedCache: false, run: { exported: true } });
    expect(existsSync(unwritable)).toBe(false);
  });
});
