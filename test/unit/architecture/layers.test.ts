// The one-way dependencies docs/architecture.md promises, checked on every relative import
// under src/: the lower layers never reach up, and the node agent never into the control plane.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

/** Each folder with a promise, and every other top-level folder it may import from. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  api: [],
  metrics: [],
  balancer: [],
  storage: [],
  client: ['api'],
  pki: ['api'],
  scheduler: ['api', 'client'],
  agent: ['api', 'client', 'pki', 'metrics'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `agent/kubelet/kubelet.ts imports client/types.js` for each import that leaves its folder. */
function crossings(folder: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(join(SRC, folder))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = relative(SRC, resolve(dirname(file), match[1]!));
      const top = target.split('/')[0]!;
      if (top !== folder) found.push(`${relative(SRC, file)} imports ${target} (${top})`);
    }
  }
  return found;
}

describe('layering of src/', () => {
  it.each(Object.entries(ALLOWED))('%s imports only from %j', (folder, allowed) => {
    const violations = crossings(folder).filter(
      (line) => !allowed.includes(line.slice(line.lastIndexOf('(') + 1, -1)),
    );
    expect(violations).toEqual([]);
  });

  it('sees the imports it checks', () => {
    // A check that found no crossings at all would pass whatever the code did.
    expect(crossings('agent').some((line) => line.endsWith('(metrics)'))).toBe(true);
    expect(crossings('client').length).toBeGreaterThan(0);
  });
});
