// Builds the single `tkube` executable (linux-x64; `npm run package`, after `npm run build`):
// Node.js's single executable applications. The CLI is bundled with its commands into one file
// (oclif's explicit command strategy), and it goes with the control-plane and agent bundles, the
// node image's templates and the better-sqlite3 addon as assets; src/executable/main.ts is the
// executable's entry point. postject writes the blob into a copy of the running Node.js.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'postject';
import {
  PAYLOAD_MANIFEST_ASSET,
  type PayloadFile,
  type PayloadManifest,
  payloadAssetKey,
} from '../../src/executable/payload.js';
import { cliEntrySource, distModuleUrls } from './cli-sources.js';
import { NODE_BUNDLE } from './node-bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'dist');
/** Outside dist/, which the npm package ships. */
export const EXECUTABLE_DIR = join(root, 'build', 'executable');
export const EXECUTABLE_PATH = join(EXECUTABLE_DIR, 'tkube');
/** Node.js's fuse for single executable applications (its documentation gives it). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

async function bundleCli(): Promise<string> {
  const entry = join(EXECUTABLE_DIR, 'cli-entry.js');
  writeFileSync(
    entry,
    cliEntrySource([`export { runCli } from ${JSON.stringify(join(dist, 'executable', 'cli.js'))};`]),
  );
  return bundleForPayload(entry, join(EXECUTABLE_DIR, 'cli.mjs'));
}

/** An ES module bundle that will be dist/executable/<name>.mjs in the payload. */
async function bundleForPayload(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    ...NODE_BUNDLE,
    format: 'esm',
    outfile,
    // better-sqlite3 is loaded from the payload's node_modules; the other addons are optional
    // ones of ssh2 (through dockerode), which it does without when they are missing.
    external: ['better-sqlite3', '*.node'],
    // In the payload the bundle is in dist/executable/.
    banner: {
      js: [
        "import { createRequire as __tkubeCreateRequire } from 'node:module';",
        'const require = __tkubeCreateRequire(import.meta.url);',
        "const __filename = (await import('node:url')).fileURLToPath(import.meta.url);",
        "const __dirname = (await import('node:path')).dirname(__filename);",
        "const __tkubeDistUrl = new URL('../', import.meta.url);",
      ].join(' '),
    },
    plugins: [distModuleUrls],
  });
  return outfile;
}

async function bundleEntryPoint(): Promise<string> {
  const outfile = join(EXECUTABLE_DIR, 'main.cjs');
  await build({
    entryPoints: [join(root, 'src', 'executable', 'main.ts')],
    ...NODE_BUNDLE,
    format: 'cjs',
    outfile,
  });
  return outfile;
}

/** Every file under `dir` (relative to the package root). */
function filesUnder(dir: string, keep: (path: string) => boolean = () => true): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter(keep)
    .sort();
}

/** The package.json of the payload: the real one, with the commands found in the CLI bundle. */
function payloadPackageJson(): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const oclif = pkg.oclif as Record<string, unknown>;
  const commands = { strategy: 'explicit', target: './dist/executable/cli.mjs', identifier: 'COMMANDS' };
  const trimmed = { name: pkg.name, version: pkg.version, type: pkg.type, oclif: { ...oclif, commands } };
  return `${JSON.stringify(trimmed, null, 2)}\n`;
}

/** Payload path → where its content comes from. */
function payloadSources(cliBundle: string, versionBundle: string, packageJson: string): Map<string, string> {
  const sources = new Map<string, string>([
    ['package.json', packageJson],
    ['dist/executable/cli.mjs', cliBundle],
    ['dist/executable/version.mjs', versionBundle],
  ]);
  const add = (path: string) => sources.set(path, join(root, path));
  for (const path of filesUnder('dist/controlplane-bundle', (p) => !p.endsWith('.tmp'))) add(path);
  for (const path of filesUnder('dist/agent-bundle')) add(path);
  for (const path of filesUnder('templates')) add(path);
  // better-sqlite3 finds its addon through `bindings`, which needs file-uri-to-path.
  for (const path of filesUnder('node_modules/better-sqlite3/lib')) add(path);
  add('node_modules/better-sqlite3/package.json');
  add('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  for (const dependency of ['bindings', 'file-uri-to-path']) {
    for (const path of filesUnder(
      `node_modules/${dependency}`,
      (p) => !p.includes('/test/') && (p.endsWith('.js') || p.endsWith('.json')),
    ))
      add(path);
  }
  return sources;
}

function payloadManifest(sources: Map<string, string>): PayloadManifest {
  const hash = createHash('sha256');
  const files: PayloadFile[] = [];
  for (const [path, source] of [...sources].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const mode = statSync(source).mode & 0o755;
    files.push({ path, mode });
    hash.update(`${path}\0${mode}\0`).update(readFileSync(source)).update('\0');
  }
  return { hash: hash.digest('hex').slice(0, 16), files };
}

export async function buildExecutable(): Promise<{ path: string; bytes: number; durationMs: number }> {
  const started = Date.now();
  for (const required of [
    'dist/executable/cli.js',
    'dist/controlplane-bundle/main.js',
    'dist/agent-bundle/agent.mjs',
  ])
    if (!existsSync(join(root, required)))
      throw new Error(`${required} is missing: run \`npm run build\` first`);
  rmSync(EXECUTABLE_DIR, { recursive: true, force: true });
  mkdirSync(EXECUTABLE_DIR, { recursive: true });
  const packageJson = join(EXECUTABLE_DIR, 'package.json');
  writeFileSync(packageJson, payloadPackageJson());
  const versionBundle = await bundleForPayload(
    join(dist, 'executable', 'version.js'),
    join(EXECUTABLE_DIR, 'version.mjs'),
  );
  const sources = payloadSources(await bundleCli(), versionBundle, packageJson);
  const manifest = payloadManifest(sources);
  const manifestFile = join(EXECUTABLE_DIR, PAYLOAD_MANIFEST_ASSET);
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const assets: Record<string, string> = { [PAYLOAD_MANIFEST_ASSET]: manifestFile };
  for (const [path, source] of sources) assets[payloadAssetKey(path)] = source;
  const blob = join(EXECUTABLE_DIR, 'sea-prep.blob');
  const config = join(EXECUTABLE_DIR, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      main: await bundleEntryPoint(),
      output: blob,
      disableExperimentalSEAWarning: true,
      assets,
    }),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'ignore' });
  copyFileSync(process.execPath, EXECUTABLE_PATH);
  await inject(EXECUTABLE_PATH, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  rmSync(blob);
  return { path: EXECUTABLE_PATH, bytes: statSync(EXECUTABLE_PATH).size, durationMs: Date.now() - started };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { path, bytes, durationMs } = await buildExecutable();
  console.log(
    `tkube executable: ${path} (${(bytes / 2 ** 20).toFixed(1)} MiB, built in ${(durationMs / 1000).toFixed(1)} s)`,
  );
}
