// A cluster's RSA keys begun before the CLI loads: `up` takes those, and each cluster gets its own.
import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startClusterRsaKeys, takeClusterRsaKeys } from '../../../src/pki/early-keys.js';

describe('cluster RSA keys begun early', () => {
  it('hands the keys begun at start to the first taker, and makes new ones for the next', async () => {
    startClusterRsaKeys();
    const slot = Symbol.for('tkube.clusterRsaKeys');
    const begun = (globalThis as Record<symbol, unknown>)[slot];
    expect(begun).toBeInstanceOf(Promise);
    startClusterRsaKeys();
    expect((globalThis as Record<symbol, unknown>)[slot]).toBe(begun);
    const first = takeClusterRsaKeys();
    expect(first).toBe(begun);
    const second = takeClusterRsaKeys();
    expect(second).not.toBe(first);
    const [a, b] = await Promise.all([first, second]);
    for (const keys of [a, b]) {
      expect(createPrivateKey(keys.ca.privateKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
      expect(createPrivateKey(keys.serviceAccount.privateKeyPem).asymmetricKeyType).toBe('rsa');
    }
    const pems = new Set([a.ca, a.serviceAccount, b.ca, b.serviceAccount].map((key) => key.privateKeyPem));
    expect(pems.size).toBe(4);
  });
});
