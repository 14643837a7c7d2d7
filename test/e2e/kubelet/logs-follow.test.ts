// `kubectl logs` on a real cluster: tail, timestamps, following a running container, the
// previous instance of a restarted one, init containers, and the apiserver's errors.
import { describe, expect, it } from 'vitest';
import {
  busyboxPod,
  type KubeletCluster,
  podView,
  useKubeletCluster,
  waitRunning,
} from './volumes-logs-probes-support.js';

let cluster!: KubeletCluster;
useKubeletCluster(
  'klog',
  (c) => {
    cluster = c;
  },
  async () => {
    await cluster.apply([
      busyboxPod(cluster, 'counter', {
        initContainers: [{ name: 'setup', command: ['sh', '-c', 'echo init done'] }],
        containers: [
          {
            name: 'main',
            command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo "line $i"; sleep 0.5; done'],
          },
        ],
      }),
      busyboxPod(cluster, 'crasher', {
        containers: [{ name: 'main', command: ['sh', '-c', 'echo "instance $(date +%s)"; sleep 2; exit 1'] }],
      }),
      busyboxPod(cluster, 'multi', {
        containers: [
          { name: 'a', command: ['sh', '-c', 'echo from-a; sleep 3600'] },
          { name: 'b', command: ['sh', '-c', 'echo from-b >&2; sleep 3600'] },
        ],
      }),
    ]);
    await Promise.all([waitRunning(cluster, 'counter', 120_000), waitRunning(cluster, 'multi', 120_000)]);
  },
);

describe('kubectl logs', () => {
  it('prints the tail, with timestamps when asked', async () => {
    await cluster.waitFor(async () =>
      (await cluster.kubectl(['logs', 'counter'])).stdout.includes('line 3') ? true : undefined,
    );
    const tail = await cluster.kubectl(['logs', 'counter', '--tail', '2']);
    expect(tail.exitCode, tail.stderr).toBe(0);
    const [first, second] = tail.stdout.split('\n').map((line) => Number(line.replace('line ', '')));
    expect(second).toBe(first! + 1);
    const stamped = await cluster.kubectl(['logs', 'counter', '--tail', '1', '--timestamps']);
    expect(stamped.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z line \d+$/);
    expect((await cluster.kubectl(['logs', 'counter', '-c', 'setup'])).stdout).toBe('init done');
    expect((await cluster.kubectl(['logs', 'multi', '-c', 'b'])).stdout).toBe('from-b');
  });

  it('streams with -f', async () => {
    const follow = cluster.spawnKubectl(['logs', '-f', 'counter', '--tail', '1']);
    let output = '';
    follow.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await cluster.waitFor(
        async () => (output.split('\n').filter(Boolean).length >= 4 ? true : undefined),
        20_000,
      );
    } finally {
      follow.kill();
      await follow.catch(() => undefined);
    }
    const numbers = output
      .split('\n')
      .filter(Boolean)
      .map((line) => Number(line.replace('line ', '')));
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1]! + 1);
  });

  it('shows the previous instance of a restarted container, and says when there is none', async () => {
    const none = await cluster.kubectl(['logs', 'counter', '--previous']);
    expect(none.exitCode).toBe(1);
    // kubectl first says which container it defaulted to (the pod has an init container too).
    expect(none.stderr).toContain(
      'Error from server (BadRequest): previous terminated container "main" in pod "counter" not found',
    );
    await cluster.waitFor(async () => {
      const pod = await podView(cluster, 'crasher');
      return (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? true : undefined;
    }, 120_000);
    const previous = await cluster.kubectl(['logs', 'crasher', '--previous']);
    expect(previous.exitCode, previous.stderr).toBe(0);
    expect(previous.stdout).toMatch(/^instance \d+$/);
  });

  it('answers the apiserver errors for a pod with several containers', async () => {
    const raw = await cluster.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/multi/log']);
    expect(raw.exitCode).toBe(1);
    expect(raw.stderr).toContain('a container name must be specified for pod multi, choose one of: [a b]');
    const wrong = await cluster.kubectl(['logs', 'multi', '-c', 'nope']);
    expect(wrong.stderr).toContain('container nope is not valid for pod multi');
  });
});
