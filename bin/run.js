#!/usr/bin/env node
// `tkube version` (and `-o json`) is answered without loading oclif, a third of the CLI's
// start-up; the text comes from the same function the version command uses. Every other command
// runs from the CLI's bundle through V8's code cache once `npm run build` has made it
// (src/cli/bundle.ts), else from dist/ module by module, as does the hidden `controlplane`
// (scripts/build/bundle-cli.ts leaves it out).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundle's code cache is written this long after a run that had none (`up` lives longer). */
const CODE_CACHE_WRITE_DELAY_MS = 1_000;

const args = process.argv.slice(2);
const jsonFlags = [['-o', 'json'], ['-ojson'], ['--output', 'json'], ['--output=json']];
const asJson = jsonFlags.some(
  (flags) => flags.length === args.length - 1 && flags.every((f, i) => args[i + 1] === f),
);
const bundle = fileURLToPath(new URL('../dist/cli-bundle/cli.cjs', import.meta.url));
if (args[0] === 'version' && (args.length === 1 || asJson)) {
  const { tkubeVersions, versionText } = await import('../dist/api/tkube-version.js');
  process.stdout.write(versionText(tkubeVersions(), asJson ? 'json' : undefined));
} else if (args[0] !== 'controlplane' && existsSync(bundle)) {
  const { runWithCodeCache } = await import('../dist/api/code-cache-loader.js');
  runWithCodeCache(bundle, `${bundle}.cache`, CODE_CACHE_WRITE_DELAY_MS);
} else {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
