// bench:network's ingress part alone (`npm run build && tsx scripts/bench/network-ingress-run.ts`):
// a `tkube up --nodes 2` (INGRESS_BENCH_NODES), the HTTP backend on the second node behind a
// service, then network-ingress.ts's rounds (the ingress, the ClusterIP directly, the TCP
// pass-through floor). INGRESS_BENCH_ROUNDS and INGRESS_BENCH_SECONDS change the run's shape
// (3 × 5 s as bench:network).
// With INGRESS_BENCH_BASELINE set to a directory holding another commit's src/, that commit's
// proxy and this tree's run side by side as pods on one node's address (A/B under the same load).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { execa } from 'execa';
import type { Node, Pod, Service } from '../../src/api/types/core-v1.generated.js';
import { NODES, PODS, SERVICES } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { buildBusyboxImage, waitFor } from '../../test/e2e/kubelet/pods-support.js';
import { isolatedCliEnv } from './cli-env.js';
import { type ProxyBuild, runIngressBench } from './network-ingress.js';
import { httpBackendPod } from './node-script-pod.js';

const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-ingress-'));
const env = isolatedCliEnv(dir);
const cluster = process.env.TKUBE_BENCH_CLUSTER ?? 'ingress-bench';
const context = `tkube-${cluster}`;
const IMAGE = 'tkube-test/busybox:net-bench';

/** proxy-server.ts under `root` bundled as one CommonJS script for a pod's `node -e`. */
async function proxyBuild(label: string, root: string): Promise<ProxyBuild> {
  const result = await build({
    entryPoints: [join(root, 'src/agent/ingress/proxy-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
  });
  return { label, bundle: result.outputFiles[0]!.text };
}

async function tkube(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
  if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
}

try {
  await buildBusyboxImage(IMAGE);
  await tkube(['up', cluster, '--nodes', process.env.INGRESS_BENCH_NODES ?? '2']);
  await tkube(['load', 'image', IMAGE, '--name', cluster]);
  const client = clientFromKubeconfig(env.KUBECONFIG, context, 'bench');
  const nodes = (await client.resource<Node>(NODES).list('')).items
    .map((node) => node.metadata!.name!)
    .sort();
  const pods = client.resource<Pod>(PODS);
  await pods.create(httpBackendPod('http-backend', IMAGE, nodes[1]!));
  await client.resource<Service>(SERVICES).create({
    metadata: { name: 'svc-0', namespace: 'default' },
    spec: { selector: { app: 'http-backend' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  });
  await waitFor(
    () => pods.get('default', 'http-backend'),
    (pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    120_000,
    'the backend ready',
  );
  await runIngressBench({
    client,
    kubectlEnv: env,
    context,
    nodes,
    image: IMAGE,
    service: 'svc-0',
    rounds: Number(process.env.INGRESS_BENCH_ROUNDS ?? 3),
    seconds: Number(process.env.INGRESS_BENCH_SECONDS ?? 5),
    concurrency: 8,
    proxyBuilds: process.env.INGRESS_BENCH_BASELINE
      ? [
          await proxyBuild('a (baseline)', process.env.INGRESS_BENCH_BASELINE),
          await proxyBuild('b (this tree)', fileURLToPath(new URL('../..', import.meta.url))),
        ]
      : [],
  });
} finally {
  await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  rmSync(dir, { recursive: true, force: true });
}
