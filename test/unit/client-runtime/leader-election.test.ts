import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findResource } from '../../../src/api/resources/lookup.js';
import type { Lease } from '../../../src/api/types/coordination-v1.generated.js';
import { type LeaderElectionConfig, LeaderElector } from '../../../src/client/leader-election/index.js';
import { FakeClient, type FakeResourceClient } from './fake-client.js';

const LEASES = findResource('coordination.k8s.io', 'v1', 'leases')!;
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

interface Candidate {
  readonly elector: LeaderElector;
  readonly abort: AbortController;
  readonly done: Promise<void>;
  readonly calls: string[];
  leading?: AbortSignal;
}

let client: FakeClient;
let leases: FakeResourceClient<Lease>;

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2025-05-01T10:00:00Z') });
  client = new FakeClient();
  leases = client.resource<Lease>(LEASES);
});

afterEach(() => {
  vi.useRealTimers();
});

function candidate(identity: string, extra: Partial<LeaderElectionConfig> = {}): Candidate {
  const calls: string[] = [];
  const abort = new AbortController();
  const self: { leading?: AbortSignal } = {};
  const elector = new LeaderElector({
    client,
    namespace: 'kube-system',
    name: 'kube-controller-manager',
    identity,
    random: () => 0,
    log: () => {},
    callbacks: {
      onStartedLeading: (signal) => {
        self.leading = signal;
        calls.push('started');
      },
      onStoppedLeading: () => calls.push('stopped'),
      onNewLeader: (leader) => calls.push(`leader:${leader}`),
    },
    ...extra,
  });
  const done = elector.run(abort.signal);
  return {
    elector,
    abort,
    done,
    calls,
    get leading() {
      return self.leading;
    },
  };
}

const lease = () => leases.stored('kube-system', 'kube-controller-manager')!;

describe('LeaderElector', () => {
  it('creates the lease as client-go writes it and renews it every retry period', async () => {
    const a = candidate('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(a.calls).toEqual(['leader:a', 'started']);
    expect(a.elector.isLeader()).toBe(true);
    const created = lease();
    expect(created.spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2025-05-01T10:00:00.000000Z',
      renewTime: '2025-05-01T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(lease().spec?.renewTime).toBe('2025-05-01T10:00:02.000000Z');
    expect(lease().spec?.renewTime).toMatch(MICRO_TIME);
    expect(lease().spec?.acquireTime).toBe('2025-05-01T10:00:00.000000Z');
    a.abort.abort();
    await a.done;
    expect(a.calls).toEqual(['leader:a', 'started', 'stopped']);
    expect(a.leading?.aborted).toBe(true);
  });

  it('a second candidate waits; a released lease passes to it at its next attempt', async () => {
    const a = candidate('a', { releaseOnCancel: true });
    await vi.advanceTimersByTimeAsync(0);
    const b = candidate('b');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(b.calls).toEqual(['leader:a']);
    expect(lease().spec?.holderIdentity).toBe('a');

    a.abort.abort();
    await a.done;
    expect(lease().spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(b.calls).toEqual(['leader:a', 'leader:b', 'started']);
    expect(lease().spec).toMatchObject({
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      leaseTransitions: 1,
    });
    b.abort.abort();
    await b.done;
  });

  it('takes over an abandoned lease only after leaseDuration as seen on its own clock', async () => {
    const a = candidate('a');
    await vi.advanceTimersByTimeAsync(0);
    // The leader vanishes without releasing: its renewals stop.
    a.abort.abort();
    await a.done;
    const b = candidate('b');
    await vi.advanceTimersByTimeAsync(14_000);
    expect(b.elector.isLeader()).toBe(false);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(lease().spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    b.abort.abort();
    await b.done;
  });

  it('stops leading when it cannot renew within the renew deadline', async () => {
    const a = candidate('a');
    await vi.advanceTimersByTimeAsync(0);
    const down = Array.from({ length: 50 }, () => new Error('connection refused'));
    leases.failures.update = [...down];
    leases.failures.get = [...down];
    await vi.advanceTimersByTimeAsync(9_000);
    expect(a.leading?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(a.leading?.aborted).toBe(true);
    await a.done;
    expect(a.calls.at(-1)).toBe('stopped');
  });

  it('checks its timing configuration as client-go does', () => {
    const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
    const base = { client, namespace: 'ns', name: 'l', identity: 'me', callbacks };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000 })).toThrow(
      'leaseDuration must be greater than renewDeadline',
    );
    expect(() => new LeaderElector({ ...base, retryPeriodMs: 9_000 })).toThrow(
      'renewDeadline must be greater than retryPeriod*JitterFactor',
    );
    expect(() => new LeaderElector({ ...base, identity: '' })).toThrow('Lock identity is empty');
  });
});
