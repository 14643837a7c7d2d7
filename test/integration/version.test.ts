import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot, tkube } from '../support/cli.js';

describe('tkube version', () => {
  it('prints tkube, Kubernetes and Node.js versions', async () => {
    const result = await tkube(['version']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^tkube version: \d+\.\d+\.\d+$/m);
    expect(result.stdout).toMatch(/^Kubernetes API: v1\.33\.\d+$/m);
    expect(result.stdout).toContain(`Node.js: ${process.version}`);
  });

  it('prints JSON with -o json', async () => {
    const result = await tkube(['version', '-o', 'json']);
    expect(result.exitCode).toBe(0);
    const info = JSON.parse(result.stdout) as Record<string, string>;
    expect(info.kubernetesVersion).toMatch(/^v1\.33\./);
    expect(info.nodeVersion).toBe(process.version);
    expect(info.tkubeVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('rejects an unknown output format with a one-line error', async () => {
    const result = await tkube(['version', '-o', 'xml']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Expected --output=xml to be one of: json/);
  });

  it('answers without oclif exactly as the oclif command does, in every spelling it takes', async () => {
    // bin/run.js answers these itself; oclif's execute() with the same args runs the command.
    const viaOclif = async (args: string[]) => {
      const script = `import('@oclif/core').then((o) => o.execute({ dir: process.argv[1], args: JSON.parse(process.argv[2]) }))`;
      const dir = pathToFileURL(`${repoRoot}/bin/run.js`).href;
      return (await execa(process.execPath, ['-e', script, dir, JSON.stringify(args)], { cwd: repoRoot }))
        .stdout;
    };
    for (const args of [
      ['version'],
      ['version', '-o', 'json'],
      ['version', '-ojson'],
      ['version', '--output=json'],
    ]) {
      const fast = await tkube(args);
      expect(fast.exitCode).toBe(0);
      expect(fast.stdout).toBe(await viaOclif(args));
    }
  });
});
