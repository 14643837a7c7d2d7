// `import()` for code that runs as a vm script (no upstream counterpart): the single executable's
// main script (executable/main.ts) and the CLI's bundle, which runs through V8's code cache
// (cli/bundle.ts). Such a script has no module loader of its own; this borrows the main context's,
// which vm gives since Node.js 20.12. Only builtin modules may be imported here.
import { constants, Script } from 'node:vm';

type ImportFromDisk = (url: string) => Promise<Record<string, unknown>>;

/** `import(url)` with Node's own ES module loader. */
export function importFromDisk(url: string): Promise<Record<string, unknown>> {
  // The loader is marked experimental in Node.js 20; its one warning would precede every command.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) emitWarning.call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  const load = new Script('(url) => import(url)', {
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }).runInThisContext() as ImportFromDisk;
  return load(url).finally(() => {
    process.emitWarning = emitWarning;
  });
}
