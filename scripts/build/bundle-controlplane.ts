// Bundles the control plane (dist/controlplane/main.js and everything it imports) into one
// minified CommonJS file, controlplane.cjs, next to its OpenAPI data, with a small ES module
// entry (main.js) that runs it through a V8 code cache; the component threads get their own,
// smaller pairs (components.cjs, component-main.js; the scheduler's scheduler.cjs, scheduler-main.js). Loading one file instead of a few
// hundred modules took a third off the time to /readyz; the code cache a third of the rest.
// CommonJS because only a classic script can take V8's cache in Node 20. The cache is made here
// by starting the bundle once, with the flags `tkube up` uses, so the first cluster starts fast.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { CONTROL_PLANE_NODE_FLAGS } from '../../src/cluster/controlplane-process.js';
import { assertLatin1, NODE_BUNDLE } from './node-bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outdir = `${root}dist/controlplane-bundle`;
const bundle = `${outdir}/controlplane.cjs`;
const components = `${outdir}/components.cjs`;
const scheduler = `${outdir}/scheduler.cjs`;
rmSync(outdir, { recursive: true, force: true });
/** A CommonJS bundle (the part V8's code cache applies to) and the small ES module entry running it. */
async function bundlePair(source: string, cjs: string, runner: string, entry: string): Promise<void> {
  await bundleCommonJs(`${root}dist/controlplane/${source}`, cjs);
  await build({
    ...NODE_BUNDLE,
    entryPoints: [`${root}dist/controlplane/${runner}`],
    format: 'esm',
    outfile: `${outdir}/${entry}`,
  });
}
async function bundleCommonJs(source: string, cjs: string): Promise<void> {
  await build({
    ...NODE_BUNDLE,
    entryPoints: [source],
    format: 'cjs',
    outfile: cjs,
    // The native addon stays a package import; so does the etcd client (it reads its .proto files
    // beside its own sources, and only a cluster on etcd loads it).
    external: ['better-sqlite3', 'etcd3'],
    // The sources find files beside themselves through import.meta.url.
    define: { 'import.meta.url': '__tkubeModuleUrl' },
    banner: { js: "const __tkubeModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  assertLatin1(cjs);
}
await bundlePair('main.js', bundle, 'bundle-main.js', 'main.js');
// The component threads' own bundles, without the apiserver: a third of its size, and the
// scheduler's alone a fifth of that (component-main.ts, scheduler-main.ts).
await bundlePair('component-main.js', components, 'component-bundle-main.js', 'component-main.js');
await bundlePair('scheduler-main.js', scheduler, 'scheduler-bundle-main.js', 'scheduler-main.js');
// The field manager's thread (big creates): its program alone, started lazily and seldom, so
// without a code cache (apiserver/apply/field-manager-thread.ts finds it beside the bundle).
await bundleCommonJs(
  `${root}dist/apiserver/apply/field-manager-thread-main.js`,
  `${outdir}/field-manager-thread.cjs`,
);
copyFileSync(
  `${root}src/apiserver/openapi/builtin-definitions.generated.json`,
  `${outdir}/builtin-definitions.generated.json`,
);

/** Starts the bundle once on a throwaway state directory and stops it once all caches are written. */
async function warmCodeCache(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'tkube-code-cache-'));
  const child = spawn(
    process.execPath,
    [...CONTROL_PLANE_NODE_FLAGS, `${outdir}/main.js`, '--state-dir', stateDir, '--api-port', '0'],
    {
      stdio: 'ignore',
      // A thread per component, so that each bundle runs and writes its cache (on two cores
      // the default is one shared thread, which never loads the scheduler's own bundle).
      env: { ...process.env, TKUBE_COMPONENT_THREADS: 'separate' },
    },
  );
  try {
    const deadline = Date.now() + 60_000;
    // The component threads write theirs a few seconds after they start, once /readyz answers.
    while (![bundle, components, scheduler].every((file) => existsSync(`${file}.cache`))) {
      if (child.exitCode !== null) throw new Error(`the control plane bundle exited (${child.exitCode})`);
      if (Date.now() > deadline) throw new Error('the control plane bundle wrote no code cache within 60 s');
      await sleep(100);
    }
  } finally {
    child.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  }
}

await warmCodeCache();
console.log(`control plane bundle: ${outdir}/main.js (with its V8 code cache)`);
