import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/agent/kubelet/backoff.js';

describe('the kubelet back-off', () => {
  it('doubles from 10 s to at most 5 min', () => {
    let now = 0;
    const backoff = new Backoff(undefined, undefined, () => now);
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      backoff.next('k', now);
      delays.push(backoff.get('k'));
      now += 1000;
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('keeps a container in back-off for the delay after its exit, then lets it go', () => {
    let now = 100_000;
    const backoff = new Backoff(undefined, undefined, () => now);
    backoff.next('k', now);
    const exitedAt = now + 5_000;
    now = exitedAt + 9_000;
    expect(backoff.isInBackOffSince('k', exitedAt)).toBe(true);
    now = exitedAt + 10_000;
    expect(backoff.isInBackOffSince('k', exitedAt)).toBe(false);
    expect(backoff.isInBackOffSince('other', exitedAt)).toBe(false);
  });

  it('starts over once a container ran for more than twice the maximum (10 min)', () => {
    let now = 0;
    const backoff = new Backoff(undefined, undefined, () => now);
    for (let i = 0; i < 4; i++) backoff.next('k', now);
    expect(backoff.get('k')).toBe(80_000);
    now = 11 * 60_000;
    expect(backoff.isInBackOffSince('k', now)).toBe(false);
    backoff.next('k', now);
    expect(backoff.get('k')).toBe(10_000);
  });

  it('backs image pulls off from the last failure (IsInBackOffSinceUpdate)', () => {
    let now = 0;
    const backoff = new Backoff(undefined, undefined, () => now);
    backoff.next('pull', now);
    expect(backoff.isInBackOffSinceUpdate('pull', 9_999)).toBe(true);
    expect(backoff.isInBackOffSinceUpdate('pull', 10_000)).toBe(false);
    expect(backoff.expiresAt('pull')).toBe(10_000);
    now = 10_000;
    backoff.next('pull', now);
    expect(backoff.expiresAt('pull')).toBe(30_000);
    backoff.forgetPrefix('pu');
    expect(backoff.get('pull')).toBe(0);
  });
});
