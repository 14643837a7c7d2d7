// The CLI as bin/run.js runs it from the npm package once built (no upstream counterpart: kind is
// a Go binary): oclif and every command bundled into one CommonJS file, dist/cli-bundle/cli.cjs
// (scripts/build/bundle-cli.ts), which runs through V8's code cache as the control plane's bundle
// does. Loading a few hundred modules was nearly all of the CLI's start-up. oclif is given the
// package's own package.json with the explicit command strategy, the bundle being its target.
import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type Command, execute, type Interfaces } from '@oclif/core';

/** Where the build writes the bundle (beside it, its code cache); bin/run.js takes it when it is there. */
export const CLI_BUNDLE = fileURLToPath(new URL('../cli-bundle/cli.cjs', import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the command line with `commands` (id → command class) as the root plugin's commands. */
export async function runBundledCli(commands: Record<string, Command.Class>): Promise<void> {
  // oclif require()s the strategy's target. The bundle is running already (not through require),
  // so its entry in require's cache is made here: a second copy would bring a second oclif.
  const self = new Module(CLI_BUNDLE);
  self.filename = CLI_BUNDLE;
  self.exports = { COMMANDS: commands };
  self.loaded = true;
  createRequire(import.meta.url).cache[CLI_BUNDLE] = self;
  const pjson = JSON.parse(readFileSync(`${PACKAGE_ROOT}package.json`, 'utf8')) as Interfaces.PJSON;
  pjson.oclif = {
    ...pjson.oclif,
    commands: { strategy: 'explicit', target: './dist/cli-bundle/cli.cjs', identifier: 'COMMANDS' },
  };
  await execute({ loadOptions: { root: PACKAGE_ROOT, pjson } });
}
