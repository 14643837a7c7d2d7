// Bundles the CLI (oclif and every command, as the single executable does: cli-sources.ts) into
// one minified CommonJS file, dist/cli-bundle/cli.cjs, which bin/run.js runs through the control
// plane's V8 code-cache loader (src/cli/bundle.ts). CommonJS because only a classic script takes
// V8's cache in Node 20. The cache is made here, with every command's modules evaluated, so that
// the first command after a build starts fast; a command that finds none usable (another
// Node.js) writes it again.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { cliEntrySource, distModuleUrls } from './cli-sources.js';
import { NODE_BUNDLE } from './node-bundle.js';

/**
 * The hidden command that runs a whole control plane in the foreground (the control plane has
 * its own bundle): with it, the bundle every command loads would be twice as big. bin/run.js
 * runs it from dist/.
 */
const MODULES_ONLY_COMMAND = 'controlplane';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outdir = join(root, 'dist', 'cli-bundle');
const bundle = join(outdir, 'cli.cjs');
const cacheFile = `${bundle}.cache`;
/** The generated entry stays out of dist/, which the npm package ships. */
const entryDir = join(root, 'build', 'cli-bundle');

/**
 * A vm script has no `import()` of its own: oclif's, which loads other plugins' ES module
 * commands (`tkube autocomplete`), borrows the main context's loader (cli/import-from-disk.ts).
 */
const oclifImportsFromDisk: Plugin = {
  name: 'oclif-imports-from-disk',
  setup(builder) {
    builder.onLoad(
      { filter: /@oclif[\\/]core[\\/]lib[\\/](module-loader|config[\\/]ts-path)\.js$/ },
      (args) => {
        const source = readFileSync(args.path, 'utf8');
        const helper = JSON.stringify(join(root, 'dist', 'cli', 'import-from-disk.js'));
        const patched = source.replaceAll('await import(', 'await __tkubeImportFromDisk(');
        if (patched === source) throw new Error(`${args.path}: no import() left to route (oclif changed?)`);
        return {
          contents: `const { importFromDisk: __tkubeImportFromDisk } = require(${helper});\n${patched}`,
          loader: 'js',
        };
      },
    );
  },
};

async function bundleCli(): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(entryDir, { recursive: true });
  const entry = join(entryDir, 'cli-entry.js');
  writeFileSync(
    entry,
    cliEntrySource(
      [`import { runBundledCli } from ${JSON.stringify(join(root, 'dist', 'cli', 'bundle.js'))};`],
      ['void runBundledCli(COMMANDS);'],
      { lazy: true, omit: [MODULES_ONLY_COMMAND] },
    ),
  );
  await build({
    ...NODE_BUNDLE,
    entryPoints: [entry],
    format: 'cjs',
    outfile: bundle,
    // The native SQLite addon and the etcd client stay package imports, as in the control plane's
    // bundle; the other addons are optional ones of ssh2 (through dockerode), which does without.
    external: ['better-sqlite3', 'etcd3', '*.node'],
    // Our modules keep their dist/ URLs (distModuleUrls); the packages' own uses get the bundle's.
    define: { 'import.meta.url': '__tkubeModuleUrl' },
    banner: {
      js: "const __tkubeModuleUrl = require('node:url').pathToFileURL(__filename).href; const __tkubeDistUrl = new URL('../', __tkubeModuleUrl);",
    },
    plugins: [distModuleUrls, oclifImportsFromDisk],
  });
}

/**
 * Runs `tkube --help` from the bundle, then evaluates every command's modules (their getters in
 * the bundle's COMMANDS), and waits for bin/run.js's loader to write the cache.
 */
async function warmCodeCache(): Promise<void> {
  const runJs = join(root, 'bin', 'run.js');
  const script = [
    "import { createRequire } from 'node:module';",
    'const alive = setInterval(() => {}, 1000);',
    `await import(${JSON.stringify(runJs)});`,
    `const { COMMANDS } = createRequire(import.meta.url)(${JSON.stringify(bundle)});`,
    'for (const id of Object.keys(COMMANDS)) COMMANDS[id];',
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '--eval', script, 'tkube', '--help'], {
    stdio: 'ignore',
  });
  try {
    const deadline = Date.now() + 60_000;
    while (!existsSync(cacheFile)) {
      if (child.exitCode !== null) throw new Error(`the CLI bundle exited (${child.exitCode})`);
      if (Date.now() > deadline) throw new Error('the CLI bundle wrote no code cache within 60 s');
      await sleep(100);
    }
  } finally {
    child.kill('SIGKILL');
  }
}

await bundleCli();
await warmCodeCache();
console.log(`CLI bundle: ${bundle} (with its V8 code cache)`);
