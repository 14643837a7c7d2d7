// The CA's and the service-account signer's RSA keys for `tkube up` (kubeadm makes the same two),
// begun when the CLI process starts (bin/run.js), so that OpenSSL makes them on the thread pool
// while the CLI loads: two RSA 2048 keys take 0.2-0.5 s on two cores, the longest part of `up
// --nodes 0` after the control plane's own start. The promise is kept on globalThis because the
// CLI's bundle holds a copy of this module of its own.
import { generateRsaKeyPair, type RsaKeyPair } from './keys.js';

export interface ClusterRsaKeys {
  readonly ca: RsaKeyPair;
  readonly serviceAccount: RsaKeyPair;
}

const SLOT = Symbol.for('tkube.clusterRsaKeys');
type Slot = { [SLOT]?: Promise<ClusterRsaKeys> };

/** Begins making a cluster's two RSA keys, unless keys begun earlier are still untaken. */
export function startClusterRsaKeys(): void {
  const slot = globalThis as Slot;
  if (slot[SLOT]) return;
  const keys = Promise.all([generateRsaKeyPair(), generateRsaKeyPair()]).then(([ca, serviceAccount]) => ({
    ca,
    serviceAccount,
  }));
  // Whoever takes them sees a failure; untaken, it must not end the process.
  keys.catch(() => undefined);
  slot[SLOT] = keys;
}

/** The keys begun earlier, or new ones: each cluster's keys are taken once. */
export function takeClusterRsaKeys(): Promise<ClusterRsaKeys> {
  startClusterRsaKeys();
  const slot = globalThis as Slot;
  const keys = slot[SLOT] as Promise<ClusterRsaKeys>;
  delete slot[SLOT];
  return keys;
}
