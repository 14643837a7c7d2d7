import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createProbeManager,
  type ProbeAttemptEvent,
  type ProbeResultEvent,
  probeTerminationGracePeriodSeconds,
} from '../../../src/agent/kubelet/prober/index.js';
import type { Container, Pod, Probe } from '../../../src/api/types/core-v1.generated.js';

const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'pod-1' }, spec: { containers: [] } };

/** Scripted exec results per command: each call takes the next outcome (the last one repeats). */
function harness(script: Record<string, (number | 'error')[]>) {
  const calls: { command: string; at: number }[] = [];
  const results: ProbeResultEvent[] = [];
  const attempts: ProbeAttemptEvent[] = [];
  const started = Date.now();
  const manager = createProbeManager({
    execSync: async (_id, cmd) => {
      const command = cmd[0]!;
      calls.push({ command, at: Date.now() - started });
      const outcomes = script[command]!;
      const outcome = outcomes.length > 1 ? outcomes.shift()! : outcomes[0]!;
      if (outcome === 'error') throw new Error('boom');
      return { exitCode: outcome, stdout: `${command} said ${outcome}`, stderr: '' };
    },
    onResult: (event) => results.push(event),
    onAttempt: (event) => attempts.push(event),
  });
  return { manager, calls, results, attempts, started };
}

const exec = (command: string, extra: Partial<Probe> = {}): Probe => ({
  exec: { command: [command] },
  periodSeconds: 1,
  ...extra,
});

describe('the probe manager', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function settle(h: ReturnType<typeof harness>, container: Container, id = 'c1') {
    // Past the first period of the manager's life, so probes start at once (no start-up spread).
    await vi.advanceTimersByTimeAsync(60_000);
    h.calls.length = 0;
    h.manager.addContainer(pod, container, id, '10.0.0.1');
  }

  it('reports a liveness failure after failureThreshold failures, then holds', async () => {
    const h = harness({ live: [0, 1] });
    await settle(h, { name: 'app', image: 'x', livenessProbe: exec('live', { failureThreshold: 3 }) });
    await vi.advanceTimersByTimeAsync(3_500);
    expect(h.results).toEqual([
      {
        podUid: 'pod-1',
        containerName: 'app',
        containerId: 'c1',
        kind: 'liveness',
        result: 'failure',
        output: 'live said 1',
      },
    ]);
    expect(h.attempts.map((a) => [a.reason, a.message])).toEqual([
      ['Unhealthy', 'Liveness probe failed: live said 1'],
      ['Unhealthy', 'Liveness probe failed: live said 1'],
      ['Unhealthy', 'Liveness probe failed: live said 1'],
    ]);
    const probes = h.calls.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.calls.length).toBe(probes);
    // A new container (after the restart) is probed afresh.
    h.manager.removeContainer('c1');
    h.manager.addContainer(pod, { name: 'app', image: 'x', livenessProbe: exec('live') }, 'c2', '10.0.0.1');
    await vi.advanceTimersByTimeAsync(100);
    expect(h.calls.length).toBe(probes + 1);
  });

  it('flips readiness after successThreshold successes and back after failures', async () => {
    const h = harness({ ready: [0, 0, 1, 1, 1] });
    await settle(h, {
      name: 'app',
      image: 'x',
      readinessProbe: exec('ready', { successThreshold: 2, failureThreshold: 2 }),
    });
    expect(h.manager.isReady('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(h.manager.isReady('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.manager.isReady('c1')).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.manager.isReady('c1')).toBe(false);
    expect(h.results.map((r) => [r.kind, r.result])).toEqual([
      ['readiness', 'success'],
      ['readiness', 'failure'],
    ]);
  });

  it('holds liveness and readiness until the startup probe succeeds', async () => {
    const h = harness({ start: [1, 1, 0], live: [0], ready: [0] });
    await settle(h, {
      name: 'app',
      image: 'x',
      startupProbe: exec('start', { failureThreshold: 10 }),
      livenessProbe: exec('live'),
      readinessProbe: exec('ready'),
    });
    expect(h.manager.isStarted('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(h.calls.map((c) => c.command)).toEqual(['start', 'start']);
    expect(h.manager.isReady('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.manager.isStarted('c1')).toBe(true);
    // Readiness runs at once when the container has started.
    expect(h.calls.map((c) => c.command).slice(0, 4)).toEqual(['start', 'start', 'start', 'ready']);
    expect(h.manager.isReady('c1')).toBe(true);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(h.calls.filter((c) => c.command === 'start')).toHaveLength(3);
    expect(h.calls.some((c) => c.command === 'live')).toBe(true);
  });

  it('waits initialDelaySeconds, probing on the period ticks after it', async () => {
    const h = harness({ ready: [0] });
    await settle(h, {
      name: 'app',
      image: 'x',
      readinessProbe: exec('ready', { initialDelaySeconds: 5, periodSeconds: 2 }),
    });
    await vi.advanceTimersByTimeAsync(7_000);
    expect(h.calls.map((c) => Math.round(c.at / 1000) - 60)).toEqual([6]);
  });

  it('drops results of probes that cannot run, after three tries, with an errored event', async () => {
    const h = harness({ ready: ['error'] });
    await settle(h, { name: 'app', image: 'x', readinessProbe: exec('ready') });
    await vi.advanceTimersByTimeAsync(100);
    expect(h.calls).toHaveLength(3);
    expect(h.attempts.map((a) => a.message)).toEqual(['Readiness probe errored: boom']);
    expect(h.results).toEqual([]);
  });

  it('counts containers without probes as started and ready, and stops with the pod', async () => {
    const h = harness({ live: [0] });
    await settle(h, { name: 'app', image: 'x', livenessProbe: exec('live') });
    h.manager.addContainer(pod, { name: 'plain', image: 'x' }, 'c9', '10.0.0.1');
    expect(h.manager.isReady('c9')).toBe(true);
    expect(h.manager.isStarted('c9')).toBe(true);
    h.manager.removePod('pod-1');
    const calls = h.calls.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.calls.length).toBe(calls);
  });

  it('uses the probe grace period for probe kills, else the pod one', () => {
    const container: Container = {
      name: 'c',
      image: 'x',
      livenessProbe: { terminationGracePeriodSeconds: 5 },
    };
    expect(probeTerminationGracePeriodSeconds(pod, container, 'liveness')).toBe(5);
    expect(probeTerminationGracePeriodSeconds(pod, container, 'startup')).toBe(30);
    const withGrace = { ...pod, spec: { containers: [], terminationGracePeriodSeconds: 12 } };
    expect(probeTerminationGracePeriodSeconds(withGrace, container, 'startup')).toBe(12);
  });
});
