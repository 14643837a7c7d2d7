// Time to a working app (minikube's time-to-k8s idea, carried to the first request): from
// `tkube up --nodes 1` with a cached node image, through `tkube load image` of busybox, to a
// Deployment's pod answering through its Service, by DNS name, from another pod. Used by
// bench:up (scripts/bench/up.ts).
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Deployment } from '../../src/api/types/apps-v1.generated.js';
import type { Pod, Service } from '../../src/api/types/core-v1.generated.js';
import { sleep } from '../../src/client/informers/index.js';
import { DEPLOYMENTS, PODS, SERVICES } from '../../src/client/resources.js';
import { clientFromKubeconfig } from '../../src/client/transports.js';
import { BUSYBOX, buildBusyboxImage } from '../../test/e2e/kubelet/pods-support.js';
import { backendContainer, get } from '../../test/e2e/network/support.js';

const runJs = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface TimeToK8s {
  /** `tkube up` returned (node Ready). */
  readonly upMs: number;
  /** The busybox image loaded into the node. */
  readonly loadedMs: number;
  /** The client pod got the backend's answer through `http://web/`. */
  readonly answeredMs: number;
}

/** One round on a cluster named `cluster` (brought down afterwards); `env` holds TKUBE_HOME and KUBECONFIG. */
export async function timeToK8s(
  cluster: string,
  env: Record<string, string | undefined>,
): Promise<TimeToK8s> {
  const tkube = async (args: string[]) => {
    const result = await execa(process.execPath, [runJs, ...args], { env, reject: false });
    if (result.exitCode !== 0) throw new Error(`tkube ${args.join(' ')} failed: ${result.stderr}`);
  };
  await buildBusyboxImage();
  const start = performance.now();
  try {
    await tkube(['up', cluster, '--nodes', '1']);
    const upMs = performance.now() - start;
    await tkube(['load', 'image', BUSYBOX, '--name', cluster]);
    const loadedMs = performance.now() - start;
    const client = clientFromKubeconfig(env.KUBECONFIG!, `tkube-${cluster}`, 'bench');
    try {
      await Promise.all([
        client.resource<Deployment>(DEPLOYMENTS).create({
          metadata: { name: 'web', namespace: 'default' },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers: [backendContainer()] } },
          },
        }),
        client.resource<Service>(SERVICES).create({
          metadata: { name: 'web', namespace: 'default' },
          spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
        }),
        client.resource<Pod>(PODS).create({
          metadata: { name: 'client', namespace: 'default' },
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'client',
                image: BUSYBOX,
                imagePullPolicy: 'Never',
                command: ['sh', '-c', `until ${get('http://web/')}; do busybox sleep 0.1; done`],
              },
            ],
          },
        }),
      ]);
      const pods = client.resource<Pod>(PODS);
      const deadline = performance.now() + 120_000;
      for (;;) {
        const phase = (await pods.get('default', 'client')).status?.phase;
        if (phase === 'Succeeded') break;
        if (phase === 'Failed' || performance.now() > deadline)
          throw new Error(`the client pod ended ${phase ?? 'not at all'}`);
        await sleep(50);
      }
      return { upMs, loadedMs, answeredMs: performance.now() - start };
    } finally {
      await client.close();
    }
  } finally {
    await execa(process.execPath, [runJs, 'down', cluster], { env, reject: false });
  }
}
