// `npm pack` then `npm install -g` of the tarball into an empty prefix, as a user installs tkube
// from a release tarball: the package holds what the CLI needs (bin, dist, templates, the oclif
// manifest) and its dependencies resolve from the npm cache or registry. Install scripts are
// skipped: on a machine without prebuilt binaries better-sqlite3 compiles from source for
// minutes, which the CI's own `npm ci` has already shown to work; the commands run here do not
// open the store.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstallGlobally } from '../../support/npm-install.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-e2e-npm-install-'));
const prefix = join(dir, 'prefix');
/** The installed CLI runs on this Node.js; nothing else of the repository is on its PATH. */
const env = {
  HOME: join(dir, 'home'),
  TKUBE_HOME: join(dir, 'tkube-home'),
  PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
};
let installed = '';

beforeAll(async () => {
  // The CI's npm cache holds every dependency after `npm ci`.
  const npmCache = join(process.env.HOME ?? dir, '.npm');
  installed = (
    await packAndInstallGlobally(dir, { ...process.env, HOME: env.HOME, npm_config_cache: npmCache })
  ).bin;
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack + npm install -g of the tarball', () => {
  it('ships the CLI, its compiled code, the node templates and the bundles, not the sources or tests', () => {
    const root = join(prefix, 'lib', 'node_modules', 'tkube');
    const top = readdirSync(root).sort();
    expect(top).toEqual(
      expect.arrayContaining(['bin', 'dist', 'templates', 'oclif.manifest.json', 'package.json']),
    );
    expect(top).not.toContain('src');
    expect(top).not.toContain('test');
    expect(readdirSync(join(root, 'dist'))).toEqual(
      expect.arrayContaining(['commands', 'controlplane-bundle', 'agent-bundle']),
    );
    expect(readdirSync(join(root, 'node_modules'))).toEqual(
      expect.arrayContaining(['@oclif', 'better-sqlite3']),
    );
  });

  it('runs `tkube version` and oclif commands from the installed bin', async () => {
    const version = await execa(installed, ['version'], { env, extendEnv: false, cwd: dir });
    expect(version.stdout).toMatch(/^tkube version: \d+\.\d+\.\d+$/m);
    expect(version.stdout).toMatch(/^Kubernetes API: v1\.33\.\d+$/m);
    const list = await execa(installed, ['list'], { env, extendEnv: false, cwd: dir, reject: false });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout + list.stderr).toContain('No clusters found');
    const help = await execa(installed, ['up', '--help'], { env, extendEnv: false, cwd: dir });
    expect(help.stdout).toContain('--nodes');
  });
});
