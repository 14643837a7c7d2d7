// The control plane's service-account key, begun by its entry point (bundle-main.ts) before the
// bundle loads: an RSA 2048 key takes 200-500 ms of one core to make, and on a cluster's first
// start the bundle's loading (the other core) hides most of it. `tkube up` leaves the key to the
// control plane for that reason (ensureClusterCertificates). The entry point and the bundle are
// separate module graphs, so the promise passes through a global slot.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLUSTER_PKI_FILE_NAMES } from '../pki/cluster-pki-file-names.js';
import { generateRsaKeyPair, type RsaKeyPair } from '../pki/keys.js';

const SLOT = Symbol.for('tkube.controlplane.earlyServiceAccountKey');

interface EarlyKey {
  readonly pkiDir: string;
  readonly keys: Promise<RsaKeyPair>;
}

type GlobalWithSlot = typeof globalThis & { [SLOT]?: EarlyKey };

/**
 * Starts making the service-account key when the control plane's command line names a state
 * directory whose PKI has none yet. Anything unexpected leaves the work to ensureClusterPki.
 */
export function beginServiceAccountKey(argv: readonly string[]): void {
  const { values } = parseArgs({
    args: [...argv],
    options: { 'state-dir': { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const stateDir = values['state-dir'];
  if (typeof stateDir !== 'string' || stateDir === '') return;
  const pkiDir = join(stateDir, 'pki');
  if (existsSync(join(pkiDir, CLUSTER_PKI_FILE_NAMES.serviceAccountKey))) return;
  const keys = generateRsaKeyPair();
  // Taken by startControlPlane, which reports a failure; never unhandled meanwhile.
  keys.catch(() => undefined);
  (globalThis as GlobalWithSlot)[SLOT] = { pkiDir, keys };
}

/** The key begun for this PKI directory, once: later starts in the process make their own. */
export function takeEarlyServiceAccountKey(pkiDir: string): Promise<RsaKeyPair> | undefined {
  const global = globalThis as GlobalWithSlot;
  const early = global[SLOT];
  if (early?.pkiDir !== pkiDir) return undefined;
  delete global[SLOT];
  return early.keys;
}
