// Bundles the control plane (dist/controlplane/main.js and everything it imports) into one
// minified ES module with lazily loaded chunks, next to its OpenAPI data. Loading one file
// instead of a few hundred modules takes a third off the time to /readyz.
import { copyFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outdir = `${root}dist/controlplane-bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${root}dist/controlplane/main.js`],
  bundle: true,
  minify: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  // The native addon stays a package import; CommonJS dependencies get a require().
  external: ['better-sqlite3'],
  banner: {
    js: "import { createRequire as __tkubeRequire } from 'node:module'; const require = __tkubeRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
copyFileSync(
  `${root}src/apiserver/openapi/builtin-definitions.generated.json`,
  `${outdir}/builtin-definitions.generated.json`,
);
console.log(`control plane bundle: ${outdir}/main.js`);
