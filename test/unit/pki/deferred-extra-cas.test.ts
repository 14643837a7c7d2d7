// NODE_EXTRA_CA_CERTS deferred for the control plane: moved to TKUBE_EXTRA_CA_CERTS in its
// environment, and trusted (with Node's bundled roots) by a webhook call without a caBundle.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { callWebhook } from '../../../src/apiserver/admission/webhook/client.js';
import { controlPlaneEnvironment } from '../../../src/cluster/controlplane-process.js';
import {
  caOrDefaultTrust,
  DEFERRED_EXTRA_CA_CERTS_ENV,
  defaultTrustedCas,
  deferExtraCaCerts,
} from '../../../src/pki/deferred-extra-cas.js';
import { startWebhookServer } from '../../support/webhook-server.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-extra-cas-'));

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('deferred extra CAs', () => {
  it('moves NODE_EXTRA_CA_CERTS out of the control plane environment, under its own name', () => {
    const env = controlPlaneEnvironment({ PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/extra.pem' });
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    expect(env[DEFERRED_EXTRA_CA_CERTS_ENV]).toBe('/etc/extra.pem');
    expect(env.PATH).toBe('/bin');
    expect(deferExtraCaCerts({ PATH: '/bin' })).toEqual({ PATH: '/bin' });
  });

  it("leaves Node's default trust alone when nothing was deferred", () => {
    expect(defaultTrustedCas({})).toBeUndefined();
    expect(caOrDefaultTrust('own CA')).toBe('own CA');
  });

  it("trusts Node's roots and the file's certificates; an unreadable file is reported and left out", async () => {
    const server = await startWebhookServer();
    try {
      const caPem = Buffer.from(server.caBundle, 'base64').toString('utf8');
      const file = join(dir, 'extra.pem');
      writeFileSync(file, `# a comment, as distributions' bundles have\n${caPem}`);
      const cas = defaultTrustedCas({ [DEFERRED_EXTRA_CA_CERTS_ENV]: file })!;
      expect(cas).toHaveLength(rootCertificates.length + 1);
      expect(cas.at(-1)).toBe(caPem.trim());

      // A webhook without caBundle is verified against them, as upstream against the system's roots.
      server.handlers.set('/review', () => ({ ok: true }));
      vi.stubEnv(DEFERRED_EXTRA_CA_CERTS_ENV, file);
      const answer = await callWebhook({}, { url: server.url('/review') }, 5, { request: {} });
      expect(answer).toEqual({ ok: true });

      const warn = vi.spyOn(console, 'error').mockImplementation(() => {});
      const missing = join(dir, 'missing.pem');
      expect(defaultTrustedCas({ [DEFERRED_EXTRA_CA_CERTS_ENV]: missing })).toHaveLength(
        rootCertificates.length,
      );
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/^Warning: Ignoring extra certs from `.*missing\.pem`, load failed: /),
      );
    } finally {
      await server.close();
    }
  });
});
