// With no cluster named, `status`, `load image`, `export logs` and `node` commands take the
// current kubeconfig context's cluster when it is a tkube one (with a state directory), else
// `tkube`, and say which and why; a name given always wins.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseCluster } from '../../../src/cluster/current-cluster.js';
import { tempDir } from '../../support/temp.js';

function environment(currentContexts: (string | undefined)[], clusters: string[]) {
  const dir = tempDir();
  const home = join(dir, 'home');
  for (const cluster of clusters) mkdirSync(join(home, 'clusters', cluster), { recursive: true });
  const files = currentContexts.map((context, i) => {
    const path = join(dir, `config-${i}`);
    writeFileSync(
      path,
      `apiVersion: v1\nkind: Config\n${context === undefined ? '' : `current-context: ${context}\n`}`,
    );
    return path;
  });
  return { TKUBE_HOME: home, HOME: dir, KUBECONFIG: [...files, join(dir, 'missing')].join(':') };
}

describe('chooseCluster', () => {
  it("takes the current context's tkube cluster and says so", async () => {
    expect(await chooseCluster(undefined, undefined, environment(['tkube-dev'], ['dev']))).toEqual({
      name: 'dev',
      note: 'Using cluster "dev" (the current kubeconfig context tkube-dev)',
    });
  });

  it('reads the current context from the first kubeconfig file that sets one, as kubectl does', async () => {
    const env = environment([undefined, 'tkube-b', 'tkube-a'], ['a', 'b']);
    expect((await chooseCluster(undefined, undefined, env)).name).toBe('b');
  });

  it('falls back to tkube when the context is not a tkube cluster, or one without state', async () => {
    expect(await chooseCluster(undefined, undefined, environment(['kind-kind'], ['kind']))).toEqual({
      name: 'tkube',
      note: 'Using cluster "tkube" (the current context kind-kind is not a tkube cluster)',
    });
    expect((await chooseCluster(undefined, undefined, environment(['tkube-gone'], []))).name).toBe('tkube');
    expect(await chooseCluster(undefined, undefined, environment([undefined], []))).toEqual({
      name: 'tkube',
      note: 'Using cluster "tkube" (no current kubeconfig context)',
    });
  });

  it('lets NAME or --name win, without a note', async () => {
    const env = environment(['tkube-dev'], ['dev']);
    expect(await chooseCluster('ci', undefined, env)).toEqual({ name: 'ci' });
    expect(await chooseCluster(undefined, 'ci', env)).toEqual({ name: 'ci' });
  });
});
