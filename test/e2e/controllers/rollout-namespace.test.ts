// Issue 7's rollout and namespace scenarios on real Docker nodes (`tkube up --nodes 2`), with real
// kubectl: the controllers drive real kubelets, so readiness comes from real probes, pod IPs from
// the nodes' pod CIDRs, and deletion waits for containers to really stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../../src/api/ipv4.js';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import {
  BUSYBOX,
  isReady,
  isRunning,
  type KubeletCluster,
  startKubeletCluster,
  waitFor,
} from '../kubelet/pods-support.js';
import { containerId, execInPod, loadRetaggedImage, runningTaskIds } from './node-runtime-support.js';
import { observePods } from './pod-observer.js';

const BUSYBOX_2 = 'tkube-test/busybox:2';
// Serves /tmp/ready for the readiness probe; exits promptly on SIGTERM (sh is PID 1, so it needs
// the trap), which is what makes graceful termination quick and observable.
const SERVE = 'trap "exit 0" TERM; echo ok > /tmp/ready; httpd -p 8080 -h /tmp; while true; do sleep 1; done';

let cluster: KubeletCluster;
beforeAll(async () => {
  cluster = await startKubeletCluster('ctlro');
  await loadRetaggedImage(cluster.name, BUSYBOX, BUSYBOX_2);
}, 180_000);
afterAll(async () => {
  await cluster?.down();
}, 60_000);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function json<T>(args: string[]): Promise<T> {
  return JSON.parse(await ok([...args, '-o', 'json'])) as T;
}

function deployment(namespace: string, name: string, replicas: number): Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'web',
              image: BUSYBOX,
              command: ['sh', '-c', SERVE],
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: {
                httpGet: { path: '/ready', port: 'http' },
                periodSeconds: 1,
                failureThreshold: 1,
              },
            },
          ],
        },
      },
    },
  };
}

/** The app's pods that are not being deleted. */
async function livePods(namespace: string, app: string): Promise<Pod[]> {
  const list = await cluster.pods.list(namespace, { labelSelector: `app=${app}` });
  return list.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

/** Waits until the app has exactly `count` pods, all Running and Ready, and returns them. */
function settled(namespace: string, app: string, count: number, hash?: string): Promise<Pod[]> {
  return waitFor(
    async () => (await cluster.pods.list(namespace, { labelSelector: `app=${app}` })).items,
    (pods) =>
      pods.length === count &&
      pods.every(
        (pod) =>
          !pod.metadata?.deletionTimestamp &&
          isRunning(pod) &&
          isReady(pod) &&
          (hash === undefined || pod.metadata?.labels?.['pod-template-hash'] === hash),
      ),
    90_000,
    `${count} ready ${app} pods`,
  );
}

const templateHash = (pod: Pod): string => pod.metadata?.labels?.['pod-template-hash'] ?? '';

/**
 * Checks the web Deployment's bounds (4 replicas, maxSurge 1, maxUnavailable 0) at every observed
 * change of its pods: at most 5 pods and never fewer than 4 ready, old and new ReplicaSet together.
 */
async function watchRollingBounds() {
  const violations: string[] = [];
  const hashes = new Set<string>();
  const stop = await observePods(cluster.pods, 'apps', 'app=web', (active) => {
    for (const pod of active) hashes.add(templateHash(pod));
    const ready = active.filter(isReady).length;
    if (active.length > 5) violations.push(`${active.length} pods`);
    if (ready < 4) violations.push(`${ready} ready`);
  });
  return {
    async stop() {
      await stop();
      return { violations, hashes };
    },
  };
}

describe('rollouts and namespaces on real nodes', () => {
  let firstHash = '';

  it('rolls a Deployment out on both nodes with pod IPs from each node’s pod CIDR', async () => {
    await ok(['create', 'namespace', 'apps']);
    await ok(['apply', '-f', '-'], JSON.stringify(deployment('apps', 'web', 4)));
    const status = await ok(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=90s']);
    expect(status).toContain('deployment "web" successfully rolled out');

    const pods = await settled('apps', 'web', 4);
    const nodes = await json<{ items: Node[] }>(['get', 'nodes']);
    const cidrs = new Map(nodes.items.map((node) => [node.metadata!.name!, node.spec?.podCIDR ?? '']));
    expect(new Set(pods.map((pod) => pod.spec?.nodeName))).toEqual(new Set(cluster.nodes));
    for (const pod of pods) {
      const cidr = parseIpv4Cidr(cidrs.get(pod.spec!.nodeName!)!);
      const ip = parseIpv4(pod.status?.podIP ?? '');
      expect(cidr && ip !== undefined && ipv4CidrContains(cidr, ip), `${pod.status?.podIP} in ${cidr}`).toBe(
        true,
      );
    }
    firstHash = templateHash(pods[0]!);
    expect(new Set(pods.map(templateHash))).toEqual(new Set([firstHash]));
  }, 150_000);

  it('rolls an image change with maxSurge 1 and maxUnavailable 0 at every observed step', async () => {
    const rollout = await watchRollingBounds();
    await ok(['set', 'image', 'deployment/web', '-n', 'apps', `web=${BUSYBOX_2}`]);
    await ok(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=120s']);
    const pods = await settled('apps', 'web', 4);
    const { violations, hashes } = await rollout.stop();
    expect(violations).toEqual([]);
    expect(hashes.size).toBe(2);
    expect(new Set(pods.map((pod) => pod.spec?.containers[0]?.image))).toEqual(new Set([BUSYBOX_2]));
    expect(new Set(pods.map(templateHash))).not.toContain(firstHash);

    const history = await ok(['rollout', 'history', 'deployment/web', '-n', 'apps']);
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
  }, 180_000);

  it('undoes the rollout back to the previous ReplicaSet', async () => {
    const rollout = await watchRollingBounds();
    await ok(['rollout', 'undo', 'deployment/web', '-n', 'apps']);
    await ok(['rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=120s']);
    const pods = await settled('apps', 'web', 4, firstHash);
    expect((await rollout.stop()).violations).toEqual([]);
    expect(new Set(pods.map((pod) => pod.spec?.containers[0]?.image))).toEqual(new Set([BUSYBOX]));
    const replicaSets = await json<{
      items: Array<{ metadata: { labels: Record<string, string> }; spec: { replicas: number } }>;
    }>(['get', 'replicasets', '-n', 'apps', '-l', 'app=web']);
    expect(
      replicaSets.items
        .map((rs) => [rs.metadata.labels['pod-template-hash'] === firstHash, rs.spec.replicas])
        .sort(),
    ).toEqual([
      [false, 0],
      [true, 4],
    ]);
    const history = await ok(['rollout', 'history', 'deployment/web', '-n', 'apps']);
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>\n/);
  }, 180_000);

  it('scales up and down, and replaces a deleted pod with a new running one', async () => {
    await ok(['scale', 'deployment/web', '-n', 'apps', '--replicas=6']);
    await settled('apps', 'web', 6);
    await ok(['scale', 'deployment/web', '-n', 'apps', '--replicas=2']);
    const two = await settled('apps', 'web', 2);
    const victim = two[0]!.metadata!.name!;
    await ok(['delete', 'pod', victim, '-n', 'apps', '--timeout=60s']);
    const healed = await settled('apps', 'web', 2);
    expect(healed.map((pod) => pod.metadata?.name)).not.toContain(victim);
    expect(healed.map((pod) => pod.metadata?.name)).toContain(two[1]!.metadata!.name);
    // The kubelet stopped the container before the pod left the API.
    const events = await ok([
      'get',
      'events',
      '-n',
      'apps',
      '--field-selector',
      `involvedObject.name=${victim}`,
      '-o',
      'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
    ]);
    expect(events).toContain('Killing: Stopping container web');
  }, 180_000);

  it('deletes a Deployment with its ReplicaSets and pods, whose containers stop on the nodes', async () => {
    const pods = await livePods('apps', 'web');
    const containers = pods.map((pod) => containerId(pod, 'web'));
    const running = async () => {
      const tasks = await Promise.all(cluster.nodes.map(runningTaskIds));
      return containers.filter((id) => tasks.some((set) => set.has(id)));
    };
    expect(await running()).toEqual(containers);

    await ok(['delete', 'deployment', 'web', '-n', 'apps']);
    await waitFor(
      async () => [
        ...(await ok(['get', 'replicasets', '-n', 'apps', '-o', 'name'])).split('\n'),
        ...(await ok(['get', 'pods', '-n', 'apps', '-o', 'name'])).split('\n'),
      ],
      (names) => names.every((name) => name === ''),
      60_000,
      'ReplicaSets and pods of web to go',
    );
    // A pod leaves the API only after its kubelet stopped its containers.
    expect(await running()).toEqual([]);
  }, 120_000);

  it('moves a pod whose readiness probe starts failing to notReadyAddresses, and back', async () => {
    await ok(['create', 'namespace', 'shop']);
    await ok(['apply', '-f', '-'], JSON.stringify(deployment('shop', 'store', 2)));
    await ok(['expose', 'deployment', 'store', '-n', 'shop', '--port=80', '--target-port=http']);
    const pods = await settled('shop', 'store', 2);
    const ips = pods.map((pod) => pod.status!.podIP!).sort();
    const endpoints = async (field: 'addresses' | 'notReadyAddresses') =>
      (await ok(['get', 'endpoints', 'store', '-n', 'shop', '-o', `jsonpath={.subsets[*].${field}[*].ip}`]))
        .split(' ')
        .filter(Boolean)
        .sort()
        .join();
    const sliceReady = async () =>
      (
        await ok([
          'get',
          'endpointslices',
          '-n',
          'shop',
          '-l',
          'kubernetes.io/service-name=store',
          '-o',
          'jsonpath={range .items[*].endpoints[*]}{.addresses[0]}={.conditions.ready}{" "}{end}',
        ])
      )
        .trim()
        .split(' ')
        .sort()
        .join();
    await waitFor(
      () => endpoints('addresses'),
      (value) => value === ips.join(),
      30_000,
      'ready addresses',
    );
    await waitFor(
      sliceReady,
      (value) => value === ips.map((ip) => `${ip}=true`).join(),
      30_000,
      'ready slice',
    );

    const [failing, healthy] = pods as [Pod, Pod];
    await execInPod(failing, 'web', ['/bin/busybox', 'rm', '/tmp/ready']);
    await waitFor(
      () => endpoints('notReadyAddresses'),
      (value) => value === failing.status!.podIP,
      30_000,
      'the failing pod in notReadyAddresses',
    );
    expect(await endpoints('addresses')).toBe(healthy.status!.podIP);
    const expected = [`${failing.status!.podIP}=false`, `${healthy.status!.podIP}=true`].sort().join();
    await waitFor(
      sliceReady,
      (value) => value === expected,
      30_000,
      'the failing pod not ready in the slice',
    );

    await execInPod(failing, 'web', ['/bin/sh', '-c', 'echo ok > /tmp/ready']);
    await waitFor(
      () => endpoints('addresses'),
      (value) => value === ips.join(),
      30_000,
      'recovered addresses',
    );
    expect(await endpoints('notReadyAddresses')).toBe('');
  }, 150_000);

  it('deletes a namespace with everything in it once its pods really terminated', async () => {
    await ok(['create', 'configmap', 'settings', '-n', 'shop', '--from-literal=a=b']);
    await ok(['create', 'secret', 'generic', 'password', '-n', 'shop', '--from-literal=p=q']);
    const pods = await livePods('shop', 'store');
    const containers = pods.map((pod) => containerId(pod, 'web'));

    // kubectl returns once the namespace is gone.
    const started = Date.now();
    expect((await ok(['delete', 'namespace', 'shop', '--timeout=90s'])).trim()).toBe(
      'namespace "shop" deleted',
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    const gone = await cluster.kubectl(['get', 'namespace', 'shop']);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): namespaces "shop" not found');
    const tasks = await Promise.all(cluster.nodes.map(runningTaskIds));
    expect(containers.filter((id) => tasks.some((set) => set.has(id)))).toEqual([]);

    await ok(['create', 'namespace', 'shop']);
    await waitFor(
      () => ok(['get', 'serviceaccounts,configmaps', '-n', 'shop', '-o', 'name']),
      (names) => names.includes('serviceaccount/default') && names.includes('configmap/kube-root-ca.crt'),
      30_000,
      'default SA and kube-root-ca.crt',
    );
    expect(
      await ok([
        'get',
        'deployments,replicasets,pods,services,secrets,configmaps',
        '-n',
        'shop',
        '-o',
        'name',
      ]),
    ).toBe('configmap/kube-root-ca.crt');
  }, 150_000);
});
