// `npm pack` of the repository, then `npm install -g` of the tarball into an empty prefix, as a
// user installs a release tarball. Install scripts are skipped: without prebuilt binaries
// better-sqlite3 compiles from source for minutes, and `npm ci` has shown that works.
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from './cli.js';

export interface NpmInstall {
  tarball: string;
  prefix: string;
  /** The installed `tkube`. */
  bin: string;
}

export async function packAndInstallGlobally(
  dir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<NpmInstall> {
  const pack = await execa('npm', ['pack', '--json', '--pack-destination', dir], { cwd: repoRoot });
  const tarball = join(dir, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
  const prefix = join(dir, 'prefix');
  await execa(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      tarball,
    ],
    { cwd: dir, env },
  );
  return { tarball, prefix, bin: join(prefix, 'bin', 'tkube') };
}
