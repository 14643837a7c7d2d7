// Issue 21 item 1, big objects, on `tkube up --nodes 0 --fake-nodes 2`: the two pods (20,000
// containers; one container with 50,000 env vars) are over etcd's 1.5 MiB in kube-apiserver's
// storage encoding once defaulted and given managedFields, so they are refused as upstream refuses
// them; a body over 3 MiB gets 413; a big pod under the limit is stored while /readyz stays fast
// and the control plane's memory bounded (it settles: the
// first /readyz after the write can still take hundreds of milliseconds, see the issue).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';
import { eventually } from '../../support/control-plane.js';

let cluster: TestCluster;
let home: string;

beforeAll(async () => {
  cluster = await startTestCluster('ov-big', { fakeNodes: 2 });
  home = join(cluster.env.TKUBE_HOME!, 'clusters', 'ov-big');
}, 120_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

const pod = (name: string, spec: object) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const wide = (count: number) =>
  pod('wide', { containers: Array.from({ length: count }, (_, i) => ({ name: `c${i}`, image: 'busybox' })) });
const withEnv = (name: string, count: number) =>
  pod(name, {
    containers: [
      {
        name: 'c',
        image: 'busybox',
        env: Array.from({ length: count }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
      },
    ],
  });

const controlPlaneRssBytes = () => {
  const pid = readFileSync(join(home, 'controlplane.pid'), 'utf8').trim();
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(rss) * 1024;
};

/** /readyz as kubectl logs its round trip (kubectl's own start-up is not the server's latency). */
async function readyzMs(): Promise<number> {
  const result = await cluster.kubectl(['get', '--raw', '/readyz', '-v=6']);
  expect(result.exitCode, result.stderr).toBe(0);
  // kubectl 1.33 logs `status="200 OK" milliseconds=N`, older ones `200 OK in N milliseconds`.
  const times = [...result.stderr.matchAll(/200 OK"? (?:milliseconds=|in )(\d+)/g)].map((match) =>
    Number(match[1]),
  );
  return Math.min(...times);
}

async function create(body: string): Promise<{ exitCode: number; stderr: string; ms: number }> {
  const started = performance.now();
  const result = await cluster.kubectl(['create', '-f', '-'], { input: body });
  return { ...result, ms: performance.now() - started };
}

describe('big objects', () => {
  it('refuses the issue’s two pods with etcd’s "request is too large", as kube-apiserver does', async () => {
    for (const body of [wide(20_000), withEnv('env', 50_000)]) {
      const result = await create(body);
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain('etcdserver: request is too large');
    }
    const tooBig = await create(withEnv('huge', 100_000));
    expect(tooBig.stderr).toContain('Request entity too large: limit is 3145728');
    expect(await readyzMs()).toBeLessThanOrEqual(100);
  }, 120_000);

  it('stores a big pod under the limit and stays responsive and bounded', async () => {
    const before = statSync(join(home, 'state.db')).size;
    const stored = await create(withEnv('big', 15_000));
    expect(stored.exitCode, stored.stderr).toBe(0);
    const got = await cluster.kubectl([
      'get',
      'pod',
      'big',
      '-o',
      'jsonpath={.spec.containers[0].env[14999].value}',
    ]);
    expect(got.stdout).toBe('value-14999');
    // Right after the write every informer is still taking the big event in (measured 450 ms at a
    // load average of 30): what is asserted is that the server settles, not that it never stalls.
    const first = await readyzMs();
    await eventually(async () => ((await readyzMs()) <= 100 ? true : undefined), 15_000, 500);
    expect(controlPlaneRssBytes()).toBeLessThanOrEqual(500 * 1024 * 1024);
    const deleted = await cluster.kubectl(['delete', 'pod', 'big', '--grace-period=0', '--force']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    await eventually(async () => ((await readyzMs()) <= 100 ? true : undefined), 15_000, 500);
    console.log(
      `big objects: create ${stored.ms.toFixed(0)} ms, first /readyz ${first} ms, RSS ${(controlPlaneRssBytes() / 2 ** 20).toFixed(0)} MiB, ` +
        `state.db ${(before / 2 ** 20).toFixed(1)} → ${(statSync(join(home, 'state.db')).size / 2 ** 20).toFixed(1)} MiB`,
    );
  }, 120_000);
});
