// The entry point of the single `tkube` executable (Node.js single executable applications; no
// upstream counterpart: kind is a Go binary). The executable is Node.js with this file and the
// package's files as assets (scripts/build/executable.ts). It plays two parts:
// - run as `node` (argv[0], as the node image installs it and as the CLI starts the control
//   plane), it is the Node.js runtime for the script named on its command line;
// - otherwise it is the CLI: the package's files are written once to a cache directory named
//   after their hash (the native SQLite addon must be a file to be loaded, and the control
//   plane's bundle is started from disk), then the CLI bundle runs from there.
// Only builtin modules can be required here; ES modules on disk are imported through the
// main context's loader (cli/import-from-disk.ts).
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { getAsset } from 'node:sea';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { importFromDisk } from '../cli/import-from-disk.js';
import { PAYLOAD_MANIFEST_ASSET, type PayloadManifest, payloadAssetKey, RUNTIME_ARGV0 } from './payload.js';

/** The CLI bundle inside the payload; the CLI's files sit around it as in the npm package. */
const CLI_BUNDLE = 'dist/executable/cli.mjs';
/** `tkube version` alone, a small bundle beside it. */
const VERSION_BUNDLE = 'dist/executable/version.mjs';

/** `node [--version | V8 flags] SCRIPT [ARGS]`: what tkube itself asks of a Node.js runtime. */
async function runAsNode(args: string[]): Promise<void> {
  let index = 0;
  for (; index < args.length && args[index]?.startsWith('-'); index++) {
    const flag = args[index] as string;
    if (flag === '--version' || flag === '-v') {
      process.stdout.write(`${process.version}\n`);
      return;
    }
    // Options the runtime has no use for are V8's (tkube passes --max-semi-space-size).
    setFlagsFromString(flag);
  }
  const script = args[index];
  if (script === undefined) {
    process.stderr.write('tkube: run as node, this executable needs a script to run\n');
    process.exitCode = 9;
    return;
  }
  const file = resolve(script);
  process.argv = [process.execPath, file, ...args.slice(index + 1)];
  await importFromDisk(pathToFileURL(file).href);
}

function readManifest(): PayloadManifest {
  return JSON.parse(getAsset(PAYLOAD_MANIFEST_ASSET, 'utf8')) as PayloadManifest;
}

/** The directories the payload may live in, the user's cache first. */
function cacheRoots(): string[] {
  const roots: string[] = [];
  if (process.env.TKUBE_CACHE_DIR) roots.push(process.env.TKUBE_CACHE_DIR);
  const xdg = process.env.XDG_CACHE_HOME;
  roots.push(join(xdg || join(homedir(), '.cache'), 'tkube', 'executable'));
  roots.push(join(tmpdir(), `tkube-executable-${process.getuid?.() ?? 'user'}`));
  return roots;
}

/** Writes the payload under `root` unless it is there already; returns where it is. */
function extractPayload(root: string, manifest: PayloadManifest): string {
  const target = join(root, manifest.hash);
  const complete = join(target, '.complete');
  if (existsSync(complete)) return target;
  mkdirSync(root, { recursive: true, mode: 0o700 });
  // Written aside and renamed, so a half-written payload is never taken for a whole one.
  const staging = `${target}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const file of manifest.files) {
      const path = join(staging, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, new Uint8Array(getAsset(payloadAssetKey(file.path))));
      chmodSync(path, file.mode);
    }
    writeFileSync(join(staging, '.complete'), `${manifest.hash}\n`);
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another tkube extracted the same payload first.
      if (!existsSync(complete)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

function payloadDirectory(): string {
  const manifest = readManifest();
  let lastError: unknown;
  for (const root of cacheRoots()) {
    try {
      return extractPayload(root, manifest);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function runCli(): Promise<void> {
  const dir = payloadDirectory();
  const version = await importFromDisk(pathToFileURL(join(dir, VERSION_BUNDLE)).href);
  if ((version.answerVersion as (args: string[]) => boolean)(process.argv.slice(2))) return;
  const cli = await importFromDisk(pathToFileURL(join(dir, CLI_BUNDLE)).href);
  await (cli.runCli as () => Promise<void>)();
}

function fail(error: unknown): void {
  process.stderr.write(`tkube: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

// argv[1] is argv[0] again in an executable; the arguments follow.
if (basename(process.argv0) === RUNTIME_ARGV0) runAsNode(process.argv.slice(2)).catch(fail);
else runCli().catch(fail);
