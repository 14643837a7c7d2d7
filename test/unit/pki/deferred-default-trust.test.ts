// Node's default trust deferred for the control plane: OpenSSL's emptied store in place of Node's
// bundled roots, NODE_EXTRA_CA_CERTS moved to TKUBE_EXTRA_CA_CERTS, and both trusted by a webhook
// call without a caBundle.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { callWebhook } from '../../../src/apiserver/admission/webhook/client.js';
import { controlPlaneEnvironment } from '../../../src/cluster/controlplane-process.js';
import {
  caOrDefaultTrust,
  DEFERRED_EXTRA_CA_CERTS_ENV,
  DEFERRED_TRUST_ENV,
  defaultTrustedCas,
  deferDefaultTrust,
} from '../../../src/pki/deferred-default-trust.js';
import { startWebhookServer } from '../../support/webhook-server.js';

const execFileAsync = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'tkube-default-trust-'));

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('deferred default trust', () => {
  it('starts the control plane on OpenSSL’s emptied store, NODE_EXTRA_CA_CERTS under its own name', () => {
    const env = controlPlaneEnvironment({ PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/extra.pem' });
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    expect(env).toMatchObject({
      PATH: '/bin',
      [DEFERRED_EXTRA_CA_CERTS_ENV]: '/etc/extra.pem',
      [DEFERRED_TRUST_ENV]: 'deferred',
      NODE_OPTIONS: '--use-openssl-ca',
      SSL_CERT_FILE: '/dev/null',
      SSL_CERT_DIR: '/dev/null',
    });
    // The user's own Node options stay, before tkube's.
    expect(deferDefaultTrust({ NODE_OPTIONS: '--max-old-space-size=512' }).NODE_OPTIONS).toBe(
      '--max-old-space-size=512 --use-openssl-ca',
    );
  });

  it('leaves alone a user who chose a CA store', () => {
    for (const option of ['--use-bundled-ca', '--use-openssl-ca']) {
      const env = { NODE_OPTIONS: `--trace-warnings ${option}`, NODE_EXTRA_CA_CERTS: '/etc/extra.pem' };
      expect(deferDefaultTrust(env)).toBe(env);
    }
  });

  it("runs on OpenSSL's store, not Node's bundled roots: its default context trusts nothing", async () => {
    const server = await startWebhookServer();
    try {
      server.handlers.set('/review', () => ({ ok: true }));
      const caFile = join(dir, 'server-ca.pem');
      writeFileSync(caFile, Buffer.from(server.caBundle, 'base64'));
      // A plain HTTPS request on the process's default trust, from a process with `env`.
      // Asynchronously: the server answers from this process.
      const request = async (env: NodeJS.ProcessEnv) =>
        (
          await execFileAsync(
            process.execPath,
            [
              '-e',
              `require('https').request(${JSON.stringify(server.url('/review'))}, { method: 'POST', agent: false }, (r) => { process.stdout.write(String(r.statusCode)); r.resume(); }).on('error', (e) => process.stdout.write(e.code)).end('{}')`,
            ],
            { env: { PATH: process.env.PATH, ...env } },
          )
        ).stdout;
      const deferred = deferDefaultTrust({});
      expect(await request(deferred)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      // The store is OpenSSL's: pointed at the server's CA, the same process trusts it.
      expect(await request({ ...deferred, SSL_CERT_FILE: caFile })).toBe('200');
      // Node's bundled store ignores SSL_CERT_FILE.
      expect(await request({ SSL_CERT_FILE: caFile })).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    } finally {
      await server.close();
    }
  });

  it("leaves Node's default trust alone when nothing was deferred", () => {
    expect(defaultTrustedCas({})).toBeUndefined();
    expect(defaultTrustedCas({ [DEFERRED_EXTRA_CA_CERTS_ENV]: '/etc/extra.pem' })).toBeUndefined();
    expect(caOrDefaultTrust('own CA')).toBe('own CA');
  });

  it("trusts Node's roots, without extra CAs too", () => {
    expect(defaultTrustedCas({ [DEFERRED_TRUST_ENV]: 'deferred' })).toEqual([...rootCertificates]);
  });

  it("trusts Node's roots and the file's certificates; an unreadable file is reported and left out", async () => {
    const server = await startWebhookServer();
    try {
      const caPem = Buffer.from(server.caBundle, 'base64').toString('utf8');
      const file = join(dir, 'extra.pem');
      writeFileSync(file, `# a comment, as distributions' bundles have\n${caPem}`);
      const deferred = { [DEFERRED_TRUST_ENV]: 'deferred', [DEFERRED_EXTRA_CA_CERTS_ENV]: file };
      const cas = defaultTrustedCas(deferred)!;
      expect(cas).toHaveLength(rootCertificates.length + 1);
      expect(cas.at(-1)).toBe(caPem.trim());

      // A webhook without caBundle is verified against them, as upstream against the system's roots.
      server.handlers.set('/review', () => ({ ok: true }));
      vi.stubEnv(DEFERRED_TRUST_ENV, 'deferred');
      vi.stubEnv(DEFERRED_EXTRA_CA_CERTS_ENV, file);
      const answer = await callWebhook({}, { url: server.url('/review') }, 5, { request: {} });
      expect(answer).toEqual({ ok: true });

      const warn = vi.spyOn(console, 'error').mockImplementation(() => {});
      const missing = join(dir, 'missing.pem');
      expect(defaultTrustedCas({ ...deferred, [DEFERRED_EXTRA_CA_CERTS_ENV]: missing })).toHaveLength(
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
