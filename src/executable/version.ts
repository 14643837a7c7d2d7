// `tkube version` as the single executable answers it (bin/run.js does the same for the npm
// package): from a small bundle of its own, without loading the CLI bundle and oclif, which
// took 0.4 s of CPU for three lines.
import { tkubeVersions, versionText } from '../api/tkube-version.js';

const JSON_FLAGS = [['-o', 'json'], ['-ojson'], ['--output', 'json'], ['--output=json']];

/** Prints the version and says true when `args` ask for it in a form this answers; else false. */
export function answerVersion(args: readonly string[]): boolean {
  const asJson = JSON_FLAGS.some(
    (flags) => flags.length === args.length - 1 && flags.every((flag, i) => args[i + 1] === flag),
  );
  if (args[0] !== 'version' || !(args.length === 1 || asJson)) return false;
  process.stdout.write(versionText(tkubeVersions(), asJson ? 'json' : undefined));
  return true;
}
