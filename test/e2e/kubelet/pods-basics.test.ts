// The kubelet on `tkube up --nodes 2`: pods run with addresses from their node's CIDR and reach
// each other across nodes, see their environment and downward-API values and the kubelet-managed
// /etc/hosts, run init containers in order, and are refused or failed as Kubernetes does (runAsNonRoot, activeDeadlineSeconds).
// Also prints the start-up latency of a batch of pods (creation to Running, through a watch).
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipv4CidrContains, parseIpv4, parseIpv4Cidr } from '../../../src/api/ipv4.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { NODES } from '../../../src/client/resources.js';
import {
  BUSYBOX,
  containerLog,
  isReady,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitFor,
  waitForPod,
} from './pods-support.js';

let cluster: KubeletCluster;

beforeAll(async () => {
  cluster = await startKubeletCluster('pods');
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

const terminated = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

describe('pods on real nodes', () => {
  it('runs a pod with an address of its node, reachable from a pod on the other node', async () => {
    const [node0, node1] = cluster.nodes as [string, string];
    await cluster.pods.create(
      podOn(node0, 'web', {
        containers: [
          {
            name: 'web',
            image: BUSYBOX,
            command: [
              'sh',
              '-c',
              'echo hello-from-$(hostname) > /tmp/index.html && exec httpd -f -p 8080 -h /tmp',
            ],
            ports: [{ containerPort: 8080 }],
          },
        ],
      }),
    );
    const web = await waitForPod(cluster, 'web', (pod) => isRunning(pod) && isReady(pod));
    const node = await cluster.client.resource<Node>(NODES).get('', node0);
    const ip = web.status!.podIP!;
    expect(ipv4CidrContains(parseIpv4Cidr(node.spec!.podCIDR!)!, parseIpv4(ip)!)).toBe(true);
    expect(web.status).toMatchObject({
      hostIP: expect.any(String),
      podIPs: [{ ip }],
      qosClass: 'BestEffort',
    });

    await cluster.pods.create(
      podOn(node1, 'client', {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'client',
            image: BUSYBOX,
            command: ['sh', '-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 5 ${ip} 8080`],
          },
        ],
      }),
    );
    const client = await waitForPod(cluster, 'client', terminated);
    expect(client.status?.phase).toBe('Succeeded');
    expect(await containerLog(client, 'client')).toContain('hello-from-web');
  }, 120_000);

  it('gives containers their env, configMap and secret values, expansions and downward-API fields', async () => {
    const [node0] = cluster.nodes as [string];
    await cluster.kubectl([
      'create',
      'configmap',
      'settings',
      '--from-literal=MODE=fast',
      '--from-literal=LEVEL=3',
    ]);
    await cluster.kubectl(['create', 'secret', 'generic', 'creds', '--from-literal=PASSWORD=s3cret']);
    await cluster.pods.create(
      podOn(node0, 'env', {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'env',
            image: BUSYBOX,
            command: ['sh', '-c', 'env; echo "args: $0 $1"', '$(GREETING)', 'level-$(LEVEL)'],
            envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }],
            env: [
              { name: 'GREETING', value: 'hello-$(CFG_MODE)' },
              { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'LEVEL' } } },
              { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } },
              {
                name: 'OPTIONAL',
                valueFrom: { configMapKeyRef: { name: 'absent', key: 'x', optional: true } },
              },
              { name: 'MY_POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'MY_POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
              { name: 'MY_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
              { name: 'MY_NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              { name: 'MY_HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
              {
                name: 'MEM_LIMIT_MI',
                valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
              },
            ],
            resources: { limits: { memory: '64Mi' } },
          },
        ],
      }),
    );
    const pod = await waitForPod(cluster, 'env', terminated);
    expect(pod.status?.phase).toBe('Succeeded');
    const log = await containerLog(pod, 'env');
    const lines = new Set(log.split('\n'));
    for (const line of [
      'CFG_MODE=fast',
      'GREETING=hello-fast',
      'LEVEL=3',
      'PASSWORD=s3cret',
      'MY_POD_NAME=env',
      `MY_POD_UID=${pod.metadata!.uid}`,
      `MY_POD_IP=${pod.status!.podIP}`,
      `MY_NODE=${node0}`,
      `MY_HOST_IP=${pod.status!.hostIP}`,
      'MEM_LIMIT_MI=64',
      'KUBERNETES_SERVICE_HOST=10.96.0.1',
      'KUBERNETES_SERVICE_PORT=443',
      'args: hello-fast level-3',
    ]) {
      expect(lines, line).toContain(line);
    }
    expect(log).not.toContain('OPTIONAL=');
  }, 60_000);

  it('writes the kubelet-managed /etc/hosts, not for host-network pods or a container mounting its own', async () => {
    const [node0] = cluster.nodes as [string];
    const cat = { name: 'hosts', image: BUSYBOX, command: ['cat', '/etc/hosts'] };
    await cluster.pods.create(
      podOn(node0, 'hosts', {
        restartPolicy: 'Never',
        hostname: 'web',
        subdomain: 'sub',
        hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo', 'bar'] }],
        containers: [cat],
      }),
    );
    await cluster.pods.create(
      podOn(node0, 'hosts-hostnet', {
        restartPolicy: 'Never',
        hostNetwork: true,
        hostAliases: [{ ip: '10.1.2.4', hostnames: ['baz'] }],
        containers: [cat],
      }),
    );
    await cluster.pods.create(
      podOn(node0, 'hosts-own', {
        restartPolicy: 'Never',
        containers: [{ ...cat, volumeMounts: [{ name: 'hosts', mountPath: '/etc/hosts' }] }],
        volumes: [{ name: 'hosts', hostPath: { path: '/etc/hosts', type: 'File' } }],
      }),
    );
    // Both outputs lose their last newline (execa's and containerLog's reading).
    const nodeHosts = (await execa('docker', ['exec', node0, 'cat', '/etc/hosts'])).stdout;

    const pod = await waitForPod(cluster, 'hosts', terminated);
    expect(await containerLog(pod, 'hosts')).toBe(
      [
        '# Kubernetes-managed hosts file.',
        '127.0.0.1\tlocalhost',
        '::1\tlocalhost ip6-localhost ip6-loopback',
        'fe00::0\tip6-localnet',
        'fe00::0\tip6-mcastprefix',
        'fe00::1\tip6-allnodes',
        'fe00::2\tip6-allrouters',
        `${pod.status!.podIP}\tweb.sub.default.svc.cluster.local\tweb`,
        '',
        '# Entries added by HostAliases.',
        '10.1.2.3\tfoo\tbar',
      ].join('\n'),
    );
    const hostNet = await waitForPod(cluster, 'hosts-hostnet', terminated);
    expect(await containerLog(hostNet, 'hosts')).toBe(
      `# Kubernetes-managed hosts file (host network).\n${nodeHosts}\n\n# Entries added by HostAliases.\n10.1.2.4\tbaz`,
    );
    const own = await waitForPod(cluster, 'hosts-own', terminated);
    expect(await containerLog(own, 'hosts')).toBe(nodeHosts);
  }, 90_000);

  it('runs init containers one by one before the containers', async () => {
    const [, node1] = cluster.nodes as [string, string];
    const init = (name: string) => ({ name, image: BUSYBOX, command: ['sh', '-c', `echo ${name}; sleep 1`] });
    await cluster.pods.create(
      podOn(node1, 'init', {
        initContainers: [init('first'), init('second')],
        containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'echo main; exec sleep 3600'] }],
      }),
    );
    const pending = await waitForPod(
      cluster,
      'init',
      (pod) => pod.status?.initContainerStatuses?.[0]?.state?.terminated !== undefined,
    );
    expect(pending.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('False');
    const pod = await waitForPod(cluster, 'init', isRunning);
    const [first, second] = pod.status!.initContainerStatuses!;
    expect([first?.name, second?.name]).toEqual(['first', 'second']);
    expect(first?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(second?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    const time = (text: string | undefined) => Date.parse(text ?? '');
    expect(time(second?.state?.terminated?.startedAt)).toBeGreaterThanOrEqual(
      time(first?.state?.terminated?.finishedAt),
    );
    const main = pod.status!.containerStatuses![0]!;
    expect(time(main.state?.running?.startedAt)).toBeGreaterThanOrEqual(
      time(second?.state?.terminated?.finishedAt),
    );
    expect(await containerLog(pod, 'first')).toContain('first');
    expect(await containerLog(pod, 'main')).toContain('main');
  }, 60_000);

  it('starts a sidecar first, runs postStart, and reports termination messages', async () => {
    const [node0] = cluster.nodes as [string];
    await cluster.pods.create(
      podOn(node0, 'hooks', {
        restartPolicy: 'Never',
        // The sidecar's sleep ignores SIGTERM as PID 1: it is killed after this.
        terminationGracePeriodSeconds: 2,
        initContainers: [
          {
            name: 'sidecar',
            image: BUSYBOX,
            restartPolicy: 'Always',
            command: ['sh', '-c', 'echo sidecar-up; exec sleep 3600'],
          },
        ],
        containers: [
          {
            name: 'main',
            image: BUSYBOX,
            command: [
              'sh',
              '-c',
              'sleep 2; cat /tmp/poststart; echo my-final-words > /dev/termination-log; exit 4',
            ],
            lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo hooked > /tmp/poststart'] } } },
          },
          {
            name: 'fallback',
            image: BUSYBOX,
            terminationMessagePolicy: 'FallbackToLogsOnError',
            command: ['sh', '-c', 'echo last-words-from-the-log; exit 2'],
          },
        ],
      }),
    );
    const pod = await waitForPod(cluster, 'hooks', (p) => p.status?.phase === 'Failed', 60_000);
    const statuses = Object.fromEntries(pod.status!.containerStatuses!.map((s) => [s.name, s]));
    expect(statuses.main?.state?.terminated).toMatchObject({
      exitCode: 4,
      reason: 'Error',
      message: 'my-final-words\n',
    });
    expect(statuses.fallback?.state?.terminated).toMatchObject({
      exitCode: 2,
      message: 'last-words-from-the-log\n',
    });
    const sidecar = pod.status!.initContainerStatuses![0]!;
    const startedAt = (text: string | undefined) => Date.parse(text ?? '');
    expect(startedAt(statuses.main?.state?.terminated?.startedAt)).toBeGreaterThanOrEqual(
      startedAt(sidecar.state?.terminated?.startedAt ?? sidecar.state?.running?.startedAt),
    );
    expect(await containerLog(pod, 'main')).toContain('hooked');
    // The finished pod does not keep its sidecar running.
    const stopped = await waitForPod(
      cluster,
      'hooks',
      (p) => p.status?.initContainerStatuses?.[0]?.state?.terminated !== undefined,
    );
    expect(stopped.status?.phase).toBe('Failed');
  }, 90_000);

  it('refuses a root image under runAsNonRoot with CreateContainerConfigError', async () => {
    const [node0] = cluster.nodes as [string];
    await cluster.pods.create(
      podOn(node0, 'nonroot', {
        securityContext: { runAsNonRoot: true },
        containers: [{ name: 'app', image: BUSYBOX, command: ['sleep', '60'] }],
      }),
    );
    const pod = await waitForPod(
      cluster,
      'nonroot',
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(pod.status!.containerStatuses![0]!.state!.waiting!.message).toBe(
      `container has runAsNonRoot and image will run as root (pod: "nonroot_default(${pod.metadata!.uid})", container: app)`,
    );
  }, 60_000);

  it('fails a pod that outlives activeDeadlineSeconds', async () => {
    const [, node1] = cluster.nodes as [string, string];
    await cluster.pods.create(
      podOn(node1, 'deadline', {
        activeDeadlineSeconds: 3,
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: BUSYBOX, command: ['sleep', '3600'] }],
      }),
    );
    const pod = await waitForPod(cluster, 'deadline', (p) => p.status?.phase === 'Failed', 30_000);
    expect(pod.status).toMatchObject({
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
  }, 60_000);

  it('starts a batch of pods quickly (creation to Running through a watch)', async () => {
    const count = 20;
    const list = await cluster.pods.list('default');
    const abort = new AbortController();
    const created = new Map<string, number>();
    const runningAt = new Map<string, number>();
    const watching = (async () => {
      for await (const event of cluster.pods.watch('default', {
        resourceVersion: list.metadata.resourceVersion,
        signal: abort.signal,
      })) {
        if (event.type === 'ERROR') continue;
        const name = event.object.metadata?.name ?? '';
        if (name.startsWith('batch-') && isRunning(event.object) && !runningAt.has(name)) {
          runningAt.set(name, Date.now());
          if (runningAt.size === count) abort.abort();
        }
      }
    })();
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const name = `batch-${i}`;
        created.set(name, Date.now());
        await cluster.pods.create(
          podOn(cluster.nodes[i % 2]!, name, {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: BUSYBOX, command: ['sleep', '3600'] }],
          }),
        );
      }),
    );
    const timer = setTimeout(() => abort.abort(), 60_000);
    await watching.catch(() => undefined);
    clearTimeout(timer);
    const latencies = [...runningAt].map(([name, at]) => at - created.get(name)!).sort((a, b) => a - b);
    const quantile = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
    console.log(
      `pod start-up latency, ${count} pods on 2 nodes: p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, max ${latencies.at(-1)} ms`,
    );
    expect(latencies).toHaveLength(count);
  }, 120_000);

  it('reports the kubelet_* metrics on each kubelet, read through the apiserver', async () => {
    const metricsOf = async (node: string) => {
      const result = await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/metrics`]);
      expect(result.exitCode, result.stderr).toBe(0);
      return (series: string) => {
        const line = result.stdout.split('\n').find((l) => l.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
    };
    const [node0, node1] = cluster.nodes as [string, string];
    // The running gauges follow the kubelet's runtime relist (every second): the last one may
    // predate the batch's containers.
    const settled = (node: string) =>
      waitFor(
        () => metricsOf(node),
        (value) => (value('kubelet_running_containers{container_state="running"}') ?? 0) >= 5,
        20_000,
        `${node}'s running containers in its metrics`,
      );
    const [first, second] = await Promise.all([settled(node0), settled(node1)]);
    expect(first(`kubelet_node_name{node="${node0}"}`)).toBe(1);
    expect(second(`kubelet_node_name{node="${node1}"}`)).toBe(1);
    // Half the batch runs on each node, besides the earlier tests' pods.
    for (const value of [first, second]) {
      expect(value('kubelet_running_pods')).toBeGreaterThanOrEqual(5);
      expect(value('kubelet_running_containers{container_state="running"}')).toBeGreaterThanOrEqual(5);
      expect(value('kubelet_started_pods_total')).toBeGreaterThanOrEqual(5);
      expect(value('kubelet_started_containers_total{container_type="container"}')).toBeGreaterThanOrEqual(5);
      expect(
        value('kubelet_runtime_operations_total{operation_type="run_podsandbox"}'),
      ).toBeGreaterThanOrEqual(5);
      expect(value('kubelet_runtime_operations_total{operation_type="list_containers"}')).toBeGreaterThan(0);
      expect(value('kubelet_pod_start_duration_seconds_count')).toBeGreaterThanOrEqual(5);
      expect(
        value('kubelet_pod_worker_duration_seconds_count{operation_type="create"}'),
      ).toBeGreaterThanOrEqual(5);
      expect(value('kubelet_pleg_relist_duration_seconds_count')).toBeGreaterThan(0);
    }
    // node0 refused the runAsNonRoot container; node1 ran the init containers.
    expect(
      first(
        'kubelet_started_containers_errors_total{container_type="container",code="CreateContainerConfigError"}',
      ),
    ).toBeGreaterThan(0);
    expect(
      second('kubelet_started_containers_total{container_type="init_container"}'),
    ).toBeGreaterThanOrEqual(2);
  });
});
