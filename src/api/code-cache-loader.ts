// How the control plane's and the node agent's bundles load: one CommonJS file run through V8
// with the code V8 compiled for it on an earlier run. Compiling the control plane's megabyte,
// and then each function start-up calls, was a third of its time to /readyz. A missing cache,
// or one V8 rejects (another Node.js, a rebuilt bundle), is made again a few seconds after
// start; failing to write it (a read-only install) only costs the next start that time.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { isMainThread, threadId } from 'node:worker_threads';

/** Long enough for start-up to have compiled what it runs; short of any test's lifetime. */
const CACHE_WRITE_DELAY_MS = 3_000;

type CommonJsWrapper = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

function readCache(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function writeCache(path: string, data: Buffer): void {
  const temporary = `${path}.${process.pid}.${threadId}.tmp`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, path);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** Compiles a CommonJS file in the wrapper Node itself puts around one. */
function compile(file: string, cachedData: Buffer | undefined): Script {
  const source = readFileSync(file, 'utf8');
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
}

/** Runs the compiled file's top level; its `module.exports`. */
function run(script: Script, file: string): unknown {
  const module = { exports: {} };
  (script.runInThisContext() as CommonJsWrapper)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  return module.exports;
}

/**
 * Runs a CommonJS file as Node would, with `cacheFile` as its V8 code cache; says whether V8
 * took the cache, and what the file exports. Without a usable one, the cache is written
 * `writeDelayMs` later by the main thread, or by a worker thread when `writer` says so (the
 * components' bundle, which only they run).
 */
export function runWithCodeCache(
  file: string,
  cacheFile: string,
  writeDelayMs = CACHE_WRITE_DELAY_MS,
  writer = isMainThread,
): { usedCache: boolean; exports: unknown } {
  const cachedData = readCache(cacheFile);
  const script = compile(file, cachedData);
  const usedCache = cachedData !== undefined && script.cachedDataRejected !== true;
  if (!usedCache && writer)
    setTimeout(() => writeCache(cacheFile, script.createCachedData()), writeDelayMs).unref();
  return { usedCache, exports: run(script, file) };
}

/**
 * Runs a CommonJS file's top level and writes its code cache at once: for a program that
 * cannot run at build time (the node agent), a cache of everything its loading compiles.
 */
export function makeCodeCache(file: string, cacheFile: string): void {
  const script = compile(file, undefined);
  run(script, file);
  writeCache(cacheFile, script.createCachedData());
}
