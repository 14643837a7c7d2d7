// Probes on a real cluster: a failing httpGet liveness probe restarts the container (restartCount
// grows, Unhealthy events say why), an exec readiness probe flips Ready both ways, a tcpSocket
// readiness probe passes, and a startup probe holds `started` until it succeeds.
import { describe, expect, it } from 'vitest';
import {
  busyboxPod,
  eventMessages,
  type KubeletCluster,
  podView,
  useKubeletCluster,
} from './volumes-logs-probes-support.js';

let cluster!: KubeletCluster;
useKubeletCluster('kprb', (c) => {
  cluster = c;
});

async function condition(pod: string, type: string): Promise<string | undefined> {
  return (await podView(cluster, pod)).status?.conditions?.find((c) => c.type === type)?.status;
}

describe('probes', () => {
  it('restart a container whose liveness probe fails, with an incremented restartCount', async () => {
    await cluster.apply([
      busyboxPod(cluster, 'liveness', {
        containers: [
          {
            name: 'main',
            command: [
              'sh',
              '-c',
              'echo ok > /www/healthz; httpd -p 8080 -h /www; sleep 6; rm /www/healthz; sleep 3600',
            ],
            ports: [{ name: 'http', containerPort: 8080 }],
            livenessProbe: {
              httpGet: { path: '/healthz', port: 'http' },
              periodSeconds: 1,
              failureThreshold: 2,
            },
          },
        ],
      }),
    ]);
    const restarted = await cluster.waitFor(async () => {
      const status = (await podView(cluster, 'liveness')).status?.containerStatuses?.[0];
      return status && status.restartCount >= 1 ? status : undefined;
    }, 120_000);
    expect(restarted.restartCount).toBeGreaterThanOrEqual(1);
    const events = await eventMessages(cluster, 'liveness');
    expect(events).toContainEqual({
      reason: 'Unhealthy',
      message: 'Liveness probe failed: HTTP probe failed with statuscode: 404',
    });
  }, 180_000);

  it('flip Ready with an exec readiness probe, both ways', async () => {
    await cluster.apply([
      busyboxPod(cluster, 'readiness', {
        containers: [
          {
            name: 'main',
            command: ['sh', '-c', 'sleep 4; touch /tmp/ready; sleep 8; rm /tmp/ready; sleep 3600'],
            readinessProbe: {
              exec: { command: ['test', '-f', '/tmp/ready'] },
              periodSeconds: 1,
              failureThreshold: 1,
            },
          },
        ],
      }),
    ]);
    await cluster.waitFor(
      async () => ((await podView(cluster, 'readiness')).status?.phase === 'Running' ? true : undefined),
      90_000,
    );
    expect(await condition('readiness', 'Ready')).toBe('False');
    await cluster.waitFor(
      async () => ((await condition('readiness', 'Ready')) === 'True' ? true : undefined),
      30_000,
    );
    expect(await condition('readiness', 'ContainersReady')).toBe('True');
    await cluster.waitFor(
      async () => ((await condition('readiness', 'Ready')) === 'False' ? true : undefined),
      30_000,
    );
    const events = await eventMessages(cluster, 'readiness');
    expect(
      events.some((e) => e.reason === 'Unhealthy' && e.message.startsWith('Readiness probe failed')),
    ).toBe(true);
  }, 180_000);

  it('pass a tcpSocket readiness probe and hold started until the startup probe succeeds', async () => {
    await cluster.apply([
      busyboxPod(cluster, 'startup', {
        containers: [
          {
            name: 'main',
            command: ['sh', '-c', 'httpd -p 8080 -h /www; sleep 5; touch /tmp/started; sleep 3600'],
            startupProbe: {
              exec: { command: ['test', '-f', '/tmp/started'] },
              periodSeconds: 1,
              failureThreshold: 60,
            },
            readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
          },
        ],
      }),
    ]);
    const running = await cluster.waitFor(async () => {
      const status = (await podView(cluster, 'startup')).status?.containerStatuses?.[0] as
        | { started?: boolean; state?: Record<string, unknown> }
        | undefined;
      return status?.state?.running ? status : undefined;
    }, 90_000);
    expect(running.started).toBe(false);
    expect(await condition('startup', 'Ready')).toBe('False');
    await cluster.waitFor(
      async () => ((await condition('startup', 'Ready')) === 'True' ? true : undefined),
      30_000,
    );
    const status = (await podView(cluster, 'startup')).status?.containerStatuses?.[0] as {
      started?: boolean;
    };
    expect(status.started).toBe(true);
  }, 180_000);
});
