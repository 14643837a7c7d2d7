// Storage benchmark: `npm run bench:storage-volumes` (builds first). A control plane with 100
// simulated nodes (`--fake-nodes 100`) as a child process: (a) 20 times in a row, a claim on the
// default class `standard` and a pod using it, timed from the claim's create to the pod Running
// — the binder, the scheduler's VolumeBinding (selected node), the local-path provisioner and the
// binder again in turn (p50 / p99 / range); (b) 1,000 such claim + pod pairs at once, until every
// claim is Bound (claims/s, control-plane CPU per claim); (c) 1,000 claims of no class against
// 1,000 pre-made volumes, until every claim is Bound (the binder alone). Prints a table, then one
// JSON line.
import { performance } from 'node:perf_hooks';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../../src/api/types/core-v1.generated.js';
import { PODS, PVCS, PVS } from '../../src/client/resources.js';
import type { Client } from '../../src/client/types.js';
import { cpuSeconds, createNamespace, pool, startFakeCluster, until } from './fake-cluster.js';
import { percentile, printTable } from './report.js';

const FAKE_NODES = 100;
const LATENCY_SAMPLES = 20;
const CLAIMS = 1000;
const CONCURRENCY = 16;

function claim(namespace: string, name: string, storageClassName?: string): PersistentVolumeClaim {
  return {
    metadata: { namespace, name },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
      ...(storageClassName === undefined ? {} : { storageClassName }),
    },
  };
}

function podUsing(namespace: string, name: string, claimName: string): Pod {
  return {
    metadata: { namespace, name },
    spec: {
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  };
}

async function claimToRunning(client: Client): Promise<number[]> {
  await createNamespace(client, 'latency');
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const started = performance.now();
    await client.resource(PVCS).create(claim('latency', `data-${i}`));
    await client.resource(PODS).create(podUsing('latency', `app-${i}`, `data-${i}`));
    await until(
      `pod app-${i} Running`,
      async () => {
        const pod = await client.resource<Pod>(PODS).get('latency', `app-${i}`);
        return pod.status?.phase === 'Running' ? true : undefined;
      },
      120_000,
      10,
    );
    samples.push(performance.now() - started);
  }
  return samples;
}

async function allBound(client: Client, ns: string, count: number): Promise<void> {
  await until(
    `${count} claims Bound in ${ns}`,
    async () => {
      const { items } = await client.resource<PersistentVolumeClaim>(PVCS).list(ns);
      return items.filter((item) => item.status?.phase === 'Bound').length >= count ? true : undefined;
    },
    10 * 60_000,
    200,
  );
}

async function provisionedBinding(client: Client, pid: number) {
  await createNamespace(client, 'bulk');
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await pool(CLAIMS, CONCURRENCY, async (i) => {
    await client.resource(PVCS).create(claim('bulk', `data-${i}`));
    await client.resource(PODS).create(podUsing('bulk', `app-${i}`, `data-${i}`));
  });
  await allBound(client, 'bulk', CLAIMS);
  return { ms: performance.now() - started, cpu: cpuSeconds(pid) - cpuBefore };
}

async function staticBinding(client: Client, pid: number) {
  await createNamespace(client, 'static');
  await pool(CLAIMS, CONCURRENCY, (i) =>
    client.resource<PersistentVolume>(PVS).create({
      metadata: { name: `static-${i}` },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        hostPath: { path: `/tmp/static-${i}` },
      },
    }),
  );
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await pool(CLAIMS, CONCURRENCY, (i) => client.resource(PVCS).create(claim('static', `data-${i}`, '')));
  await allBound(client, 'static', CLAIMS);
  return { ms: performance.now() - started, cpu: cpuSeconds(pid) - cpuBefore };
}

const cluster = await startFakeCluster('storage-volumes', FAKE_NODES);
try {
  const latency = await claimToRunning(cluster.client);
  const provisioned = await provisionedBinding(cluster.client, cluster.pid);
  const bound = await staticBinding(cluster.client, cluster.pid);
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const perSecond = (count: number, elapsed: number) => `${(count / (elapsed / 1000)).toFixed(1)} claims/s`;
  printTable(`tkube storage (${FAKE_NODES} fake nodes, control plane as a child process)`, [
    ['measure', 'tkube', 'note'],
    [
      `claim create → pod Running, p50 of ${LATENCY_SAMPLES}`,
      ms(percentile(latency, 50)),
      `range ${ms(Math.min(...latency))}–${ms(Math.max(...latency))}`,
    ],
    [`  p99`, ms(percentile(latency, 99)), 'standard: WaitForFirstConsumer, local-path'],
    [`${CLAIMS} claims + pods on standard: all Bound`, ms(provisioned.ms), perSecond(CLAIMS, provisioned.ms)],
    [
      '  control plane CPU per claim',
      `${((provisioned.cpu / CLAIMS) * 1000).toFixed(2)} ms`,
      'user + system',
    ],
    [`${CLAIMS} claims on ${CLAIMS} pre-made volumes: all Bound`, ms(bound.ms), perSecond(CLAIMS, bound.ms)],
    ['  control plane CPU per claim', `${((bound.cpu / CLAIMS) * 1000).toFixed(2)} ms`, 'user + system'],
  ]);
  console.log(
    JSON.stringify({
      fakeNodes: FAKE_NODES,
      claimToRunningP50Ms: Math.round(percentile(latency, 50)),
      claimToRunningP99Ms: Math.round(percentile(latency, 99)),
      provisionedClaims: CLAIMS,
      provisionedBoundMs: Math.round(provisioned.ms),
      provisionedCpuSeconds: Number(provisioned.cpu.toFixed(2)),
      staticClaims: CLAIMS,
      staticBoundMs: Math.round(bound.ms),
      staticCpuSeconds: Number(bound.cpu.toFixed(2)),
    }),
  );
} finally {
  await cluster.stop();
}
