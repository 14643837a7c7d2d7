// Bundles the node agent (dist/agent/main.js and everything it imports) into the files `tkube
// up` copies into each node container, whose Node.js has no node_modules: agent.cjs, the agent
// as one minified CommonJS file (only a classic script takes V8's code cache in Node 20);
// agent.mjs, the small entry that runs it through its cache (agent/bundle-main.ts); and
// agent.cjs.cache, made here by loading the bundle once in a plain `node`, as the node runs it.
// Compiling what loading the agent compiles was a third of its CPU time to a Ready node.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { assertLatin1, NODE_BUNDLE } from './node-bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outdir = `${root}dist/agent-bundle`;
const bundle = `${outdir}/agent.cjs`;
const cache = `${bundle}.cache`;
rmSync(outdir, { recursive: true, force: true });
await build({ ...NODE_BUNDLE, entryPoints: [`${root}dist/agent/main.js`], format: 'cjs', outfile: bundle });
assertLatin1(bundle);
await build({
  ...NODE_BUNDLE,
  entryPoints: [`${root}dist/agent/bundle-main.js`],
  format: 'esm',
  outfile: `${outdir}/agent.mjs`,
});
// No flags, as the node starts it: V8 rejects a cache made under other flags.
const made = spawnSync(
  process.execPath,
  [
    '--input-type=module',
    '--eval',
    `import { makeCodeCache } from ${JSON.stringify(`${root}dist/api/code-cache-loader.js`)};
makeCodeCache(${JSON.stringify(bundle)}, ${JSON.stringify(cache)});
process.exit(0);`,
  ],
  { stdio: 'inherit', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '' } },
);
if (made.status !== 0 || !existsSync(cache))
  throw new Error(`the agent's code cache was not made (${made.status})`);
console.log(`agent bundle: ${outdir}/agent.mjs (with its V8 code cache)`);
