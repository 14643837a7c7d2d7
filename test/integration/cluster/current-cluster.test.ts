// The commands that act on one cluster say which they chose when none is named: here with a
// kind context current, `tkube status` and `tkube export logs` fall back to "tkube" and say why.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tkube } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

describe('a command with no cluster named', () => {
  it('says which cluster it chose and why, before its own answer', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config'), 'apiVersion: v1\nkind: Config\ncurrent-context: kind-kind\n');
    const env = { TKUBE_HOME: join(dir, 'home'), HOME: dir, KUBECONFIG: join(dir, 'config') };
    for (const args of [['status'], ['export', 'logs', join(dir, 'logs')]]) {
      const result = await tkube(args, env);
      expect(result.exitCode).toBe(1);
      expect(result.stderr.split('\n')).toEqual([
        'Using cluster "tkube" (the current context kind-kind is not a tkube cluster)',
        'Error: cluster "tkube" does not exist; list the clusters with "tkube list", or create it with "tkube up"',
      ]);
    }
  });
});
