#!/usr/bin/env node
// `tkube version` (and `-o json`) is answered without loading oclif, a third of the CLI's
// start-up; the text comes from the same function the version command uses.
const args = process.argv.slice(2);
const jsonFlags = [['-o', 'json'], ['-ojson'], ['--output', 'json'], ['--output=json']];
const asJson = jsonFlags.some(
  (flags) => flags.length === args.length - 1 && flags.every((f, i) => args[i + 1] === f),
);
if (args[0] === 'version' && (args.length === 1 || asJson)) {
  const { tkubeVersions, versionText } = await import('../dist/api/tkube-version.js');
  process.stdout.write(versionText(tkubeVersions(), asJson ? 'json' : undefined));
} else {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
