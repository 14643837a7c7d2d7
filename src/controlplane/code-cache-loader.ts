// The control plane bundle's entry point. It runs the bundle (one CommonJS file) through V8 with
// the code V8 compiled for it on an earlier run: compiling the bundle's megabyte, and then each
// function start-up calls, was a third of the time to /readyz. A missing cache, or one V8
// rejects (another Node.js, a rebuilt bundle), is made again a few seconds after start; failing
// to write it (a read-only install) only costs the next start that time.
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

/**
 * Runs a CommonJS file as Node would, with `cacheFile` as its V8 code cache; says whether V8
 * took the cache. Without a usable one, the cache is written `writeDelayMs` later by the main
 * thread, or by a worker thread when `writer` says so (the components' bundle, which only they run).
 */
export function runWithCodeCache(
  file: string,
  cacheFile: string,
  writeDelayMs = CACHE_WRITE_DELAY_MS,
  writer = isMainThread,
): { usedCache: boolean } {
  const source = readFileSync(file, 'utf8');
  const cachedData = readCache(cacheFile);
  // The wrapper Node itself puts around a CommonJS module.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const usedCache = cachedData !== undefined && script.cachedDataRejected !== true;
  if (!usedCache && writer)
    setTimeout(() => writeCache(cacheFile, script.createCachedData()), writeDelayMs).unref();
  const module = { exports: {} };
  (script.runInThisContext() as CommonJsWrapper)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  return { usedCache };
}
