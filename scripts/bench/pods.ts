// Pod start-up benchmark: `npm run bench:pods` (builds first). A real `tkube up --nodes 3` on
// Docker, a busybox image built from the host's busybox-static and loaded into every node, then
// 50 pods created at once; start-up latency is creation → Running as seen through a watch (the
// way Kubernetes' pod start-up SLI measures it, images pre-pulled). Kubernetes' SLO: 5 s at p99.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Pod } from '../../src/api/types/core-v1.generated.js';
import { PODS } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { BUSYBOX, buildBusyboxImage } from '../../test/e2e/kubelet/pods-support.js';
import { percentile, printTable } from './report.js';

const PODS_COUNT = 50;
const NODES = 3;
const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-pods-'));
const env = {
  ...process.env,
  TKUBE_HOME: join(dir, 'home'),
  KUBECONFIG: join(dir, 'kubeconfig'),
  CI: 'true',
};
const cluster = 'bench-pods';

async function tkube(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

try {
  await buildBusyboxImage();
  await tkube(['up', cluster, '--nodes', String(NODES)]);
  await tkube(['load', 'image', BUSYBOX, '--name', cluster]);
  const client = clientFromKubeconfig(env.KUBECONFIG, undefined, 'bench');
  const pods = client.resource<Pod>(PODS);
  const list = await pods.list('default');
  const created = new Map<string, number>();
  const running = new Map<string, number>();
  const nodes = new Map<string, string>();
  const abort = new AbortController();
  const done = (async () => {
    for await (const event of pods.watch('default', {
      resourceVersion: list.metadata.resourceVersion,
      signal: abort.signal,
    })) {
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') continue;
      const name = event.object.metadata?.name ?? '';
      if (event.object.status?.phase === 'Running' && !running.has(name)) {
        running.set(name, performance.now());
        nodes.set(name, event.object.spec?.nodeName ?? '');
        if (running.size === PODS_COUNT) return;
      }
    }
  })();
  await Promise.all(
    Array.from({ length: PODS_COUNT }, async (_, i) => {
      const name = `start-${i}`;
      created.set(name, performance.now());
      await pods.create({
        metadata: { name, namespace: 'default' },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [
            { name: 'sleep', image: BUSYBOX, imagePullPolicy: 'Never', command: ['sleep', '3600'] },
          ],
        },
      });
    }),
  );
  const timeout = setTimeout(() => abort.abort(), 120_000);
  await done;
  clearTimeout(timeout);
  await client.close();
  if (running.size < PODS_COUNT)
    throw new Error(`only ${running.size} of ${PODS_COUNT} pods reached Running`);
  const latencies = [...created].map(([name, at]) => running.get(name)! - at);
  const perNode = new Map<string, number>();
  for (const node of nodes.values()) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  printTable(`Pod start-up, ${PODS_COUNT} pods created at once on ${NODES} nodes (image loaded)`, [
    ['measure', 'tkube', 'target', 'Kubernetes SLO'],
    ['creation → Running, p50', `${percentile(latencies, 50).toFixed(0)} ms`, '', ''],
    ['creation → Running, p99', `${percentile(latencies, 99).toFixed(0)} ms`, '1500 ms', '5000 ms'],
    ['all Running after', `${Math.max(...latencies).toFixed(0)} ms`, '', ''],
    ['pods per node', [...perNode.values()].join(' / '), '', ''],
  ]);
  console.log(
    JSON.stringify({
      pods: PODS_COUNT,
      nodes: NODES,
      p50Ms: Math.round(percentile(latencies, 50)),
      p99Ms: Math.round(percentile(latencies, 99)),
      maxMs: Math.round(Math.max(...latencies)),
    }),
  );
} finally {
  await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
