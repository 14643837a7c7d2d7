// Resource metrics on real nodes (`tkube up --nodes 2`): the kubelet's /stats/summary (and the
// same figures as /metrics/resource), read with real kubectl through nodes/proxy, reports the
// node's and a CPU-burning pod's real usage from the node's cgroup and containerd's container
// stats; the built-in metrics server scrapes it and
// `kubectl top nodes` / `kubectl top pods --containers` print it; and an autoscaling/v2 HPA
// scales a CPU-burning Deployment up from 1 on that usage and back down to 1 once it idles. The
// cluster config shortens the HPA sync period to 5 s and the metrics' resolution to 10 s
// (metrics-server's minimum) from upstream's 15 s each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../../src/agent/kubelet/stats/summary.js';
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { HorizontalPodAutoscaler } from '../../../src/api/types/autoscaling-v2.generated.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { DEPLOYMENTS, HPAS } from '../../../src/client/resources.js';
import { eventsAbout } from '../../support/events.js';
import {
  BUSYBOX,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitFor,
  waitForPod,
} from '../kubelet/pods-support.js';

let cluster: KubeletCluster;

beforeAll(async () => {
  cluster = await startKubeletCluster(
    'mt-metrics',
    2,
    {},
    `apiVersion: tkube.dev/v1alpha1
kind: Cluster
nodes: [{role: control-plane}, {role: worker}]
controllerManager:
  extraArgs:
    horizontal-pod-autoscaler-sync-period: 5s
metricsServer:
  extraArgs:
    metric-resolution: 10s
`,
  );
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'burn', {
      containers: [{ name: 'spin', image: BUSYBOX, command: ['sh', '-c', 'while :; do :; done'] }],
    }),
  );
  await waitForPod(cluster, 'burn', isRunning, 120_000);
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

async function summaryOf(node: string): Promise<Summary> {
  const result = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/stats/summary`]);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as Summary;
}

describe('the kubelet Summary API', () => {
  it("reports the node's CPU rate and working set, and the burning pod's container", async () => {
    const node = cluster.nodes[0]!;
    // The first read of a container has no rate yet (no earlier sample): read until both do.
    const summary = await waitFor(
      () => summaryOf(node),
      (s) =>
        (s.node.cpu?.usageNanoCores ?? 0) > 0 &&
        (s.pods.find((p) => p.podRef.name === 'burn')?.cpu?.usageNanoCores ?? 0) > 0,
      60_000,
    );
    expect(summary.node.nodeName).toBe(node);
    expect(summary.node.memory?.workingSetBytes).toBeGreaterThan(0);
    const burn = summary.pods.find((p) => p.podRef.name === 'burn')!;
    expect(burn.podRef.namespace).toBe('default');
    expect(burn.containers.map((c) => c.name)).toEqual(['spin']);
    const spin = burn.containers[0]!;
    expect(spin.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(spin.memory?.workingSetBytes).toBeGreaterThan(0);
    // The node's cgroup holds its pods: its cumulative CPU is at least the pod's.
    expect(summary.node.cpu!.usageCoreNanoSeconds!).toBeGreaterThanOrEqual(spin.cpu!.usageCoreNanoSeconds!);
    // The other node runs no such pod.
    const other = await summaryOf(cluster.nodes[1]!);
    expect(other.pods.some((p) => p.podRef.name === 'burn')).toBe(false);
  });

  it('serves the same figures as Prometheus text on /metrics/resource, as metrics-server scrapes them', async () => {
    const node = cluster.nodes[0]!;
    const result = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/metrics/resource`]);
    expect(result.stderr).toBe('');
    const sample = (pattern: RegExp) => {
      const match = pattern.exec(result.stdout);
      expect(match, `${pattern} in\n${result.stdout}`).not.toBeNull();
      return { value: Number(match![1]), timeMs: Number(match![2]) };
    };
    const cpu = sample(
      /^container_cpu_usage_seconds_total\{container="spin",namespace="default",pod="burn"\} (\S+) (\d+)$/m,
    );
    // A container burning a core for a minute and more has used seconds of CPU, measured lately.
    expect(cpu.value).toBeGreaterThan(1);
    expect(Math.abs(Date.now() - cpu.timeMs)).toBeLessThan(60_000);
    expect(
      sample(
        /^container_memory_working_set_bytes\{container="spin",namespace="default",pod="burn"\} (\S+) (\d+)$/m,
      ).value,
    ).toBeGreaterThan(0);
    expect(
      sample(/^pod_cpu_usage_seconds_total\{namespace="default",pod="burn"\} (\S+) (\d+)$/m).value,
    ).toBeGreaterThanOrEqual(cpu.value);
    expect(sample(/^node_cpu_usage_seconds_total (\S+) (\d+)$/m).value).toBeGreaterThanOrEqual(cpu.value);
    expect(sample(/^node_memory_working_set_bytes (\S+) (\d+)$/m).value).toBeGreaterThan(0);
    expect(result.stdout).toMatch(/^resource_scrape_error 0$/m);
  });
});

/** A `kubectl top` table's rows (header first), read until `accept` takes them (two scrapes, 10 s apart). */
async function topRows(args: string[], accept: (rows: string[][]) => boolean): Promise<string[][]> {
  return waitFor(
    async () => {
      const result = await cluster.kubectl(['top', ...args]);
      return result.exitCode === 0
        ? result.stdout
            .trim()
            .split('\n')
            .map((line) => line.trim().split(/\s+/))
        : [];
    },
    accept,
    45_000,
  );
}

/** `250m` → 250; a whole-core figure (`2`) → 2000. */
const millicores = (cpu: string | undefined): number =>
  cpu?.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu ?? 0) * 1000;

describe('kubectl top', () => {
  it('prints both nodes with non-zero CPU and memory, the burning one busy', async () => {
    const [burning, idle] = cluster.nodes as [string, string];
    const rows = await topRows(
      ['nodes'],
      (r) => r.some((row) => row[0] === burning) && r.some((row) => row[0] === idle),
    );
    expect(rows[0]).toEqual(['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    for (const name of [burning, idle]) {
      const [, cpu, cpuPercent, memory] = rows.find((row) => row[0] === name)!;
      expect(millicores(cpu)).toBeGreaterThan(0);
      expect(cpuPercent).toMatch(/^\d+%$/);
      expect(memory).toMatch(/^[1-9]\d*Mi$/);
    }
    // A busy loop keeps most of a core busy even on a loaded machine.
    expect(millicores(rows.find((row) => row[0] === burning)![1])).toBeGreaterThanOrEqual(100);
  });

  it("prints the burning pod's container with non-zero CPU and memory", async () => {
    const rows = await topRows(['pods', '--containers'], (r) => r.some((row) => row[0] === 'burn'));
    expect(rows[0]).toEqual(['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const [, container, cpu, memory] = rows.find((row) => row[0] === 'burn')!;
    expect(container).toBe('spin');
    expect(millicores(cpu)).toBeGreaterThanOrEqual(100);
    expect(memory).toMatch(/^\d+Mi$/);
  });
});

/** kubectl that must succeed. */
async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** The HPA's SuccessfulRescale messages, oldest first. */
async function rescales(name: string): Promise<string[]> {
  return (await eventsAbout(ok, 'HorizontalPodAutoscaler', name))
    .filter((event) => event.reason === 'SuccessfulRescale')
    .sort((a, b) => (a.lastTimestamp ?? '').localeCompare(b.lastTimestamp ?? ''))
    .map((event) => event.message ?? '');
}

/** `kubectl get hpa NAME`'s TARGETS utilization (`cpu: 187%/50%` → 187), or undefined for `<unknown>`. */
async function targetsPercent(name: string): Promise<number | undefined> {
  const table = await ok(['get', 'hpa', name]);
  const match = /\scpu: (\d+)%\/50%\s/.exec(table);
  return match ? Number(match[1]) : undefined;
}

describe('HorizontalPodAutoscaler on real usage', () => {
  // Each burner may use 200m against a 100m request (200 % of it, four times the 50 % target), so
  // the HPA proposes more than maxReplicas; it spins until /tmp/idle exists, then sleeps.
  const name = 'cpu-burner';
  const deployment: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'spin',
              image: BUSYBOX,
              command: ['sh', '-c', 'while [ ! -e /tmp/idle ]; do :; done; exec sleep 3600'],
              resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } },
            },
          ],
        },
      },
    },
  };
  const autoscaler: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
      // Upstream's default keeps the highest recommendation of the last 5 minutes before scaling down.
      behavior: { scaleDown: { stabilizationWindowSeconds: 5 } },
    },
  };
  const getHpa = () => cluster.client.resource<HorizontalPodAutoscaler>(HPAS).get('default', name);
  const getDeployment = () => cluster.client.resource<Deployment>(DEPLOYMENTS).get('default', name);
  const specReplicas = async () => (await getDeployment()).spec?.replicas;
  const condition = (hpa: HorizontalPodAutoscaler, type: string) =>
    hpa.status?.conditions?.find((c) => c.type === type);

  it('scales a CPU-burning Deployment up from 1 to maxReplicas on its pods’ CPU utilization', async () => {
    const started = Date.now();
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [deployment, autoscaler] }),
    );
    const scaled = await waitFor(
      getHpa,
      (hpa) => (hpa.status?.desiredReplicas ?? 0) > 1,
      60_000,
      'a scale-up',
    );
    // The status written with the rescale carries the utilization that drove it.
    expect(scaled.status?.currentReplicas).toBe(1);
    const current = scaled.status?.currentMetrics?.[0]?.resource?.current;
    expect(scaled.status?.currentMetrics?.[0]?.type).toBe('Resource');
    expect(current?.averageUtilization).toBeGreaterThan(50);
    expect(condition(scaled, 'ScalingActive')).toMatchObject({
      status: 'True',
      reason: 'ValidMetricFound',
      message:
        'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
    });
    expect(condition(scaled, 'AbleToScale')).toMatchObject({
      status: 'True',
      reason: 'SucceededRescale',
      message: `the HPA controller was able to update the target scale to ${scaled.status?.desiredReplicas}`,
    });
    expect(await specReplicas()).toBe(scaled.status?.desiredReplicas);
    const percent = await targetsPercent(name);
    expect(percent).toBeGreaterThan(50);
    const first = await rescales(name);
    expect(first[0]).toMatch(
      /^New size: [23]; reason: cpu resource utilization \(percentage of request\) above target$/,
    );
    // All the way to maxReplicas (one step at 200 %, two when a loaded machine gives a burner less).
    // status.currentReplicas is the count the sync began with: the new count shows in desiredReplicas.
    await waitFor(getHpa, (hpa) => hpa.status?.desiredReplicas === 3, 60_000, 'maxReplicas');
    const ready = await waitFor(getDeployment, (d) => d.status?.readyReplicas === 3, 60_000, '3 ready pods');
    expect(ready.spec?.replicas).toBe(3);
    console.log(`scale-up to 3 after ${Date.now() - started} ms; TARGETS cpu: ${percent}%/50%`);
  }, 150_000);

  it('scales back down to 1 once the burners idle', async () => {
    const started = Date.now();
    const pods = JSON.parse(await ok(['get', 'pods', '-l', `app=${name}`, '-o', 'json'])) as { items: Pod[] };
    const running = pods.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined);
    expect(running).toHaveLength(3);
    // The pods stay: only their CPU falls.
    await Promise.all(
      running.map((pod) => ok(['exec', pod.metadata!.name!, '--', 'sh', '-c', ': > /tmp/idle'])),
    );
    const down = await waitFor(getHpa, (hpa) => hpa.status?.desiredReplicas === 1, 60_000, 'a scale-down');
    expect(down.status?.currentReplicas).toBe(3);
    expect(condition(down, 'AbleToScale')).toMatchObject({ reason: 'SucceededRescale' });
    await waitFor(
      getDeployment,
      (d) => d.spec?.replicas === 1 && d.status?.replicas === 1,
      30_000,
      'one pod',
    );
    expect(condition(down, 'ScalingActive')?.status).toBe('True');
    expect(condition(down, 'AbleToScale')?.status).toBe('True');
    const messages = await rescales(name);
    expect(messages.at(-1)).toBe('New size: 1; reason: All metrics below target');
    // The idle pod's utilization is well under the target.
    const idle = await waitFor(
      () => targetsPercent(name),
      (p) => p !== undefined && p < 50,
      60_000,
      'idle TARGETS',
    );
    console.log(
      `scale-down to 1 after ${Date.now() - started} ms; TARGETS cpu: ${idle}%/50%; ${messages.join(' / ')}`,
    );
  }, 150_000);
});
