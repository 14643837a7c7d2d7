// The control plane entry's early service-account key: begun only for a state directory whose PKI
// lacks the key, handed once to the start that names the same directory.
import { createPrivateKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  beginServiceAccountKey,
  takeEarlyServiceAccountKey,
} from '../../../src/controlplane/early-service-account-key.js';

const root = mkdtempSync(join(tmpdir(), 'tkube-early-sa-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('early service-account key', () => {
  it('begins an RSA key for a PKI without one and hands it over once, to the same directory only', async () => {
    const stateDir = join(root, 'fresh');
    beginServiceAccountKey(['--state-dir', stateDir, '--api-port', '6443']);
    expect(takeEarlyServiceAccountKey(join(root, 'other', 'pki'))).toBeUndefined();
    const keys = takeEarlyServiceAccountKey(join(stateDir, 'pki'));
    expect(keys).toBeDefined();
    const key = createPrivateKey((await keys!).privateKeyPem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(takeEarlyServiceAccountKey(join(stateDir, 'pki'))).toBeUndefined();
  });

  it('begins nothing when the key exists or no state directory is named', () => {
    const stateDir = join(root, 'existing');
    mkdirSync(join(stateDir, 'pki'), { recursive: true });
    writeFileSync(join(stateDir, 'pki', 'sa.key'), 'kept');
    beginServiceAccountKey([`--state-dir=${stateDir}`]);
    expect(takeEarlyServiceAccountKey(join(stateDir, 'pki'))).toBeUndefined();
    beginServiceAccountKey(['--api-port', '6443']);
    expect(takeEarlyServiceAccountKey(join('', 'pki'))).toBeUndefined();
  });
});
