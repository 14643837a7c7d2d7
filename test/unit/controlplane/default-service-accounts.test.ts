// The wait for the system namespaces' default ServiceAccounts: every namespace asked at once,
// then only those still without one; the first still missing reported at the deadline.
import { describe, expect, it } from 'vitest';
import { SYSTEM_NAMESPACES } from '../../../src/controlplane/bootstrap.js';
import { waitForDefaultServiceAccounts } from '../../../src/controlplane/default-service-accounts.js';

describe('waitForDefaultServiceAccounts', () => {
  it('asks every namespace at once, then only those still missing', async () => {
    // kube-public's account appears on the third ask, the others' at once.
    const asks = new Map<string, number>();
    let inFlight = 0;
    let mostInFlight = 0;
    const missing = await waitForDefaultServiceAccounts({
      exists: async (namespace) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        const count = (asks.get(namespace) ?? 0) + 1;
        asks.set(namespace, count);
        return namespace !== 'kube-public' || count >= 3;
      },
    });
    expect(missing).toBeUndefined();
    expect(mostInFlight).toBe(SYSTEM_NAMESPACES.length);
    expect([...asks]).toEqual([
      ['default', 1],
      ['kube-system', 1],
      ['kube-public', 3],
      ['kube-node-lease', 1],
    ]);
  });

  it('reports the first namespace still without one at the deadline', async () => {
    const missing = await waitForDefaultServiceAccounts({
      exists: async (namespace) => namespace === 'default' || namespace === 'kube-system',
      timeoutMs: 30,
    });
    expect(missing).toBe('kube-public');
  });
});
