// The CLI as the single executable runs it (bin/run.js's counterpart): the commands are bundled
// into one file with this module, and oclif finds them through package.json's explicit command
// strategy instead of reading dist/commands. `tkube version` skips oclif, as bin/run.js does.
import { execute } from '@oclif/core';
import { tkubeVersions, versionText } from '../api/tkube-version.js';

const JSON_FLAGS = [['-o', 'json'], ['-ojson'], ['--output', 'json'], ['--output=json']];

export async function runCli(): Promise<void> {
  const args = process.argv.slice(2);
  const asJson = JSON_FLAGS.some(
    (flags) => flags.length === args.length - 1 && flags.every((flag, i) => args[i + 1] === flag),
  );
  if (args[0] === 'version' && (args.length === 1 || asJson)) {
    process.stdout.write(versionText(tkubeVersions(), asJson ? 'json' : undefined));
    return;
  }
  // oclif looks for package.json upwards from here (the payload's root).
  await execute({ dir: import.meta.url });
}
