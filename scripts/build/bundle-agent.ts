// Bundles the node agent (dist/agent/main.js and everything it imports) into one file that
// `tkube up` copies into each node container: the nodes have Node.js but no node_modules.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE } from './node-bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outfile = `${root}dist/agent-bundle/agent.mjs`;
await build({
  entryPoints: [`${root}dist/agent/main.js`],
  ...NODE_BUNDLE,
  format: 'esm',
  outfile,
  banner: {
    js: "import { createRequire as __tkubeRequire } from 'node:module'; const require = __tkubeRequire(import.meta.url);",
  },
});
console.log(`agent bundle: ${outfile}`);
