// The kubelet's restarts and stops on `tkube up --nodes 2`: a crashing container backs off
// longer each time (CrashLoopBackOff), a missing image backs off with the `tkube load image`
// hint, `kubectl delete pod` runs preStop and waits out the grace period (then SIGKILL), and a
// restarted node brings its pods back.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import {
  BUSYBOX,
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
  cluster = await startKubeletCluster('life');
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

const waiting = (pod: Pod) => pod.status?.containerStatuses?.[0]?.state?.waiting;

describe('container restarts and pod termination', () => {
  it('backs a crashing container off longer after each crash (CrashLoopBackOff)', async () => {
    const [node0] = cluster.nodes as [string];
    await cluster.pods.create(
      podOn(node0, 'crash', {
        containers: [{ name: 'crash', image: BUSYBOX, command: ['sh', '-c', 'echo boom; exit 3'] }],
      }),
    );
    const messages = new Set<string>();
    const restarts: { count: number; at: number }[] = [];
    const pod = await waitForPod(
      cluster,
      'crash',
      (p) => {
        const status = p.status?.containerStatuses?.[0];
        const message = waiting(p)?.reason === 'CrashLoopBackOff' ? waiting(p)?.message : undefined;
        if (message) messages.add(message.replace(/pod=.*$/, ''));
        if (status && restarts.at(-1)?.count !== status.restartCount) {
          restarts.push({ count: status.restartCount, at: Date.now() });
        }
        return (status?.restartCount ?? 0) >= 3 && waiting(p)?.reason === 'CrashLoopBackOff';
      },
      90_000,
    );
    expect([...messages]).toEqual(
      expect.arrayContaining([
        'back-off 10s restarting failed container=crash ',
        'back-off 20s restarting failed container=crash ',
      ]),
    );
    const status = pod.status!.containerStatuses![0]!;
    expect(status.lastState?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(pod.status?.phase).toBe('Running');
    // Restart 2 follows restart 1 after ~10 s, restart 3 follows after ~20 s.
    const gap = (from: number, to: number) =>
      restarts.find((r) => r.count === to)!.at - restarts.find((r) => r.count === from)!.at;
    expect(gap(1, 2)).toBeGreaterThan(8_000);
    expect(gap(2, 3)).toBeGreaterThan(gap(1, 2) + 5_000);
    const events = await cluster.kubectl([
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=crash',
      '-o',
      'json',
    ]);
    expect(events.stdout).toContain(
      `Back-off restarting failed container crash in pod crash_default(${pod.metadata!.uid})`,
    );
  }, 120_000);

  it('shows ErrImagePull, then ImagePullBackOff with the tkube load image hint, for a missing image', async () => {
    const [, node1] = cluster.nodes as [string, string];
    await cluster.pods.create(
      podOn(node1, 'missing', { containers: [{ name: 'app', image: 'tkube-test/missing:1' }] }),
    );
    const reasons = new Set<string>();
    const pod = await waitForPod(
      cluster,
      'missing',
      (p) => {
        const reason = waiting(p)?.reason;
        if (reason) reasons.add(reason);
        return reason === 'ImagePullBackOff';
      },
      60_000,
    );
    expect(reasons).toContain('ImagePullBackOff');
    expect(waiting(pod)?.message).toMatch(/^Back-off pulling image "tkube-test\/missing:1": ErrImagePull: /);
    expect(waiting(pod)?.message).toContain(`tkube load image tkube-test/missing:1 --name ${cluster.name}`);
    expect(pod.status?.phase).toBe('Pending');
  }, 90_000);

  it('runs preStop, sends SIGTERM, and removes the pod once its container stopped', async () => {
    const [node0] = cluster.nodes as [string];
    await cluster.pods.create(
      podOn(node0, 'graceful', {
        terminationGracePeriodSeconds: 20,
        containers: [
          {
            name: 'app',
            image: BUSYBOX,
            command: [
              'sh',
              '-c',
              "trap 'echo got-TERM; sleep 2; echo bye; exit 0' TERM; echo started; while true; do sleep 1; done",
            ],
            lifecycle: {
              preStop: { exec: { command: ['sh', '-c', 'echo prestop > /proc/1/fd/1; sleep 2'] } },
            },
          },
        ],
      }),
    );
    const pod = await waitForPod(cluster, 'graceful', isRunning);
    const meta = pod.metadata!;
    const log = `/var/log/pods/default_graceful_${meta.uid}/app/0.log`;
    const tail = execa('docker', ['exec', node0, 'tail', '-n', '+1', '-F', log], { reject: false });
    let output = '';
    tail.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const started = Date.now();
    const deleted = await cluster.kubectl(['delete', 'pod', 'graceful']);
    const took = Date.now() - started;
    // The last lines may still be on their way through docker exec.
    await waitFor(
      async () => output,
      (text) => text.includes(' bye'),
      5_000,
    ).catch(() => undefined);
    tail.kill();
    await tail;
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    const lines = output.split('\n').map((line) => line.replace(/^\S+ (stdout|stderr) [FP] /, ''));
    expect(lines.filter((line) => ['prestop', 'got-TERM', 'bye'].includes(line))).toEqual([
      'prestop',
      'got-TERM',
      'bye',
    ]);
    // preStop (2 s) then the TERM handler (2 s), well within the 20 s grace period.
    expect(took).toBeGreaterThan(4_000);
    expect(took).toBeLessThan(15_000);
    const events = await cluster.kubectl([
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=graceful',
    ]);
    expect(events.stdout).toContain('Stopping container app');
  }, 60_000);

  it('kills a container that ignores SIGTERM when the grace period runs out', async () => {
    const [, node1] = cluster.nodes as [string, string];
    await cluster.pods.create(
      podOn(node1, 'stubborn', {
        terminationGracePeriodSeconds: 3,
        containers: [
          {
            name: 'app',
            image: BUSYBOX,
            command: ['sh', '-c', "trap '' TERM; while true; do sleep 1; done"],
          },
        ],
      }),
    );
    await waitForPod(cluster, 'stubborn', isRunning);
    const started = Date.now();
    const deleted = await cluster.kubectl(['delete', 'pod', 'stubborn']);
    const took = Date.now() - started;
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(took).toBeGreaterThan(2_500);
    expect(took).toBeLessThan(10_000);
  }, 60_000);

  it('brings the pods of a restarted node back Running', async () => {
    const [, node1] = cluster.nodes as [string, string];
    await cluster.pods.create(
      podOn(node1, 'survivor', {
        initContainers: [{ name: 'init', image: BUSYBOX, command: ['echo', 'init'] }],
        containers: [{ name: 'app', image: BUSYBOX, command: ['sh', '-c', 'exec httpd -f -p 8080 -h /'] }],
      }),
    );
    const before = await waitForPod(cluster, 'survivor', (p) => isRunning(p) && isReady(p));
    await execa('docker', ['restart', node1]);
    const after = await waitForPod(
      cluster,
      'survivor',
      (p) => isReady(p) && (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
      90_000,
    );
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.status?.phase).toBe('Running');
    expect(after.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(after.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);
  }, 150_000);
});
