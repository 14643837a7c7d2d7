import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import {
  certificateSubjectAltNames,
  identityFromCertificate,
  issueClientCertificate,
} from '../../../src/pki/certificates.js';
import {
  type ClusterPki,
  DEFAULT_API_SERVER_DNS_NAMES,
  DEFAULT_API_SERVER_IP_ADDRESSES,
  ensureClusterCertificates,
  ensureClusterPki,
  issueNodeClientCertificate,
} from '../../../src/pki/cluster-pki.js';
import {
  generateRsaKeyPair,
  parsePrivateKeyPem,
  publicKeyPemOf,
  toPkcs1PrivateKeyPem,
} from '../../../src/pki/keys.js';
import { PkiFileError } from '../../../src/pki/pki-files.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const FILES = [
  'admin.crt',
  'admin.key',
  'apiserver.crt',
  'apiserver.key',
  'ca.crt',
  'ca.key',
  'sa.key',
  'sa.pub',
];

async function readAll(dir: string): Promise<Record<string, string>> {
  const entries = await Promise.all(
    FILES.map(async (name) => [name, await readFile(join(dir, name), 'utf8')]),
  );
  return Object.fromEntries(entries);
}

describe('ensureClusterPki', () => {
  let root: string;
  let dir: string;
  let pki: ClusterPki;
  let copies = 0;

  /** A copy of the generated PKI to damage or change without touching the original. */
  async function copyOfPki(): Promise<string> {
    const copy = join(root, `copy-${++copies}`);
    await cp(dir, copy, { recursive: true });
    return copy;
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tkube-pki-'));
    dir = join(root, 'clusters', 'dev', 'pki');
    pki = await ensureClusterPki(dir, {
      apiServerSans: { dnsNames: ['tkube.test'], ipAddresses: ['172.18.0.1', 'fd00::1'] },
    });
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('creates the files, keys readable by the owner only', async () => {
    expect((await readdir(dir)).sort()).toEqual(FILES);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const key of ['ca.key', 'apiserver.key', 'admin.key', 'sa.key']) {
      expect((await stat(join(dir, key))).mode & 0o777, key).toBe(0o600);
    }
    const onDisk = await readAll(dir);
    expect(onDisk['ca.crt']).toBe(pki.ca.certificatePem);
    expect(onDisk['apiserver.key']).toBe(pki.apiServer.privateKeyPem);
    expect(onDisk['sa.pub']).toBe(pki.serviceAccount.publicKeyPem);
    expect(pki.apiServer.certificatePath).toBe(join(dir, 'apiserver.crt'));
    expect(pki.serviceAccount.privateKeyPath).toBe(join(dir, 'sa.key'));
  });

  it('makes a kubernetes CA', () => {
    expect(pki.ca.certificate.subject).toBe('CN=kubernetes');
    expect(pki.ca.certificate.ca).toBe(true);
  });

  it('makes the apiserver serving certificate for the default and requested names', () => {
    const certificate = new X509Certificate(pki.apiServer.certificatePem);
    expect(certificate.subject).toBe('CN=kube-apiserver');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(certificate.checkIssued(pki.ca.certificate)).toBe(true);
    expect(certificate.verify(pki.ca.certificate.publicKey)).toBe(true);
    expect(certificateSubjectAltNames(certificate)).toEqual({
      dnsNames: [...DEFAULT_API_SERVER_DNS_NAMES, 'tkube.test'],
      ipAddresses: [...DEFAULT_API_SERVER_IP_ADDRESSES, '172.18.0.1', 'fd00::1'],
    });
    expect(DEFAULT_API_SERVER_DNS_NAMES).toEqual([
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ]);
    expect(DEFAULT_API_SERVER_IP_ADDRESSES).toEqual(['127.0.0.1', '10.96.0.1']);
  });

  it('makes the admin client certificate: kubernetes-admin in system:masters', () => {
    const certificate = new X509Certificate(pki.admin.certificatePem);
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(certificate.checkIssued(pki.ca.certificate)).toBe(true);
    expect(identityFromCertificate(certificate)).toEqual({
      user: 'kubernetes-admin',
      groups: ['system:masters'],
    });
  });

  it('makes an ECDSA P-256 service-account key pair as PKCS#8 and SPKI', () => {
    expect(pki.serviceAccount.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(pki.serviceAccount.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const privateKey = parsePrivateKeyPem(pki.serviceAccount.privateKeyPem);
    expect(privateKey.asymmetricKeyType).toBe('ec');
    expect(privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(publicKeyPemOf(privateKey)).toBe(pki.serviceAccount.publicKeyPem);
  });

  it('loads what exists on the next call, changing nothing', async () => {
    const before = await readAll(dir);
    const again = await ensureClusterPki(dir);
    expect(again.ca.certificate.fingerprint256).toBe(pki.ca.certificate.fingerprint256);
    expect(again.apiServer.certificatePem).toBe(pki.apiServer.certificatePem);
    expect(again.admin.certificatePem).toBe(pki.admin.certificatePem);
    expect(again.serviceAccount.privateKeyPem).toBe(pki.serviceAccount.privateKeyPem);
    expect(await readAll(dir)).toEqual(before);
  });

  it('re-issues only the serving certificate, with the same key and CA, when a new SAN is asked for', async () => {
    const copy = await copyOfPki();
    const before = await readAll(copy);
    const again = await ensureClusterPki(copy, {
      apiServerSans: {
        dnsNames: ['TKUBE.test', 'api.tkube.test'],
        ipAddresses: ['0:0::ffff:172.18.0.1', '172.18.0.2'],
      },
    });
    const after = await readAll(copy);
    expect(after['apiserver.crt']).not.toBe(before['apiserver.crt']);
    expect(after['apiserver.crt']).toBe(again.apiServer.certificatePem);
    for (const unchanged of FILES.filter((name) => name !== 'apiserver.crt')) {
      expect(after[unchanged], unchanged).toBe(before[unchanged]);
    }
    const certificate = new X509Certificate(again.apiServer.certificatePem);
    expect(certificate.verify(pki.ca.certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(parsePrivateKeyPem(again.apiServer.privateKeyPem))).toBe(true);
    // The SANs now are the defaults plus what this call asked for.
    expect(certificateSubjectAltNames(certificate)).toEqual({
      dnsNames: [...DEFAULT_API_SERVER_DNS_NAMES, 'tkube.test', 'api.tkube.test'],
      ipAddresses: [...DEFAULT_API_SERVER_IP_ADDRESSES, '172.18.0.1', '172.18.0.2'],
    });
  });

  it('keeps the serving certificate when the SANs asked for are already there, in any spelling', async () => {
    const copy = await copyOfPki();
    const again = await ensureClusterPki(copy, {
      apiServerSans: { dnsNames: ['Kubernetes.Default'], ipAddresses: ['FD00:0::1', '::ffff:127.0.0.1'] },
    });
    expect(again.apiServer.certificatePem).toBe(pki.apiServer.certificatePem);
  });

  it('re-issues an expired client certificate with the same key', async () => {
    const copy = await copyOfPki();
    const adminKeys = {
      privateKeyPem: pki.admin.privateKeyPem,
      publicKeyPem: publicKeyPemOf(parsePrivateKeyPem(pki.admin.privateKeyPem)),
    };
    const expired = await issueClientCertificate(pki.ca, {
      user: 'kubernetes-admin',
      groups: ['system:masters'],
      keyPair: adminKeys,
      now: new Date(Date.now() - 400 * DAY_MS),
    });
    await writeFile(join(copy, 'admin.crt'), expired.certificatePem);
    const again = await ensureClusterPki(copy);
    const certificate = new X509Certificate(again.admin.certificatePem);
    expect(new Date(certificate.validTo).getTime()).toBeGreaterThan(Date.now() + 300 * DAY_MS);
    expect(again.admin.privateKeyPem).toBe(pki.admin.privateKeyPem);
    expect(await readFile(join(copy, 'admin.crt'), 'utf8')).toBe(again.admin.certificatePem);
  });

  it('loads ECDSA keys stored as SEC 1 (`EC PRIVATE KEY`), the CA and the service-account key', async () => {
    const copy = await copyOfPki();
    const sec1 = pki.ca.privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    expect(sec1).toContain('-----BEGIN EC PRIVATE KEY-----');
    await writeFile(join(copy, 'ca.key'), sec1);
    const saKey = parsePrivateKeyPem(pki.serviceAccount.privateKeyPem);
    await writeFile(join(copy, 'sa.key'), saKey.export({ type: 'sec1', format: 'pem' }).toString());
    const again = await ensureClusterPki(copy);
    expect(again.ca.certificate.fingerprint256).toBe(pki.ca.certificate.fingerprint256);
    expect(again.serviceAccount.publicKeyPem).toBe(pki.serviceAccount.publicKeyPem);
  });

  it('keeps the RSA service-account key of a cluster made before keys were ECDSA, PKCS#1 too', async () => {
    const copy = await copyOfPki();
    const rsa = await generateRsaKeyPair();
    await writeFile(join(copy, 'sa.key'), toPkcs1PrivateKeyPem(parsePrivateKeyPem(rsa.privateKeyPem)));
    await writeFile(join(copy, 'sa.pub'), rsa.publicKeyPem);
    const again = await ensureClusterPki(copy);
    expect(again.serviceAccount.publicKeyPem).toBe(rsa.publicKeyPem);
    expect(parsePrivateKeyPem(again.serviceAccount.privateKeyPem).asymmetricKeyType).toBe('rsa');
  });

  it('keeps issuing from an RSA CA made before CAs were ECDSA', async () => {
    const copy = await copyOfPki();
    const rsaCa = await createCertificateAuthority({
      commonName: 'kubernetes',
      keyPair: await generateRsaKeyPair(),
    });
    await writeFile(join(copy, 'ca.key'), rsaCa.privateKeyPem);
    await writeFile(join(copy, 'ca.crt'), rsaCa.certificatePem);
    // The leaves were issued by the old CA: they are issued again by the RSA one.
    for (const file of ['apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key'])
      await unlink(join(copy, file));
    const again = await ensureClusterPki(copy);
    expect(again.ca.privateKey.asymmetricKeyType).toBe('rsa');
    for (const leaf of [again.apiServer, again.admin]) {
      const certificate = new X509Certificate(leaf.certificatePem);
      expect(certificate.verify(rsaCa.certificate.publicKey)).toBe(true);
    }
  });

  it('leaves the service-account key to whoever needs it first when only the certificates are asked for', async () => {
    const other = join(root, 'certificates-only');
    const certificates = await ensureClusterCertificates(other);
    expect(certificates).not.toHaveProperty('serviceAccount');
    expect((await readdir(other)).sort()).toEqual(FILES.filter((name) => !name.startsWith('sa.')));
    // The control plane's start then makes it.
    const full = await ensureClusterPki(other);
    expect(parsePrivateKeyPem(full.serviceAccount.privateKeyPem).asymmetricKeyType).toBe('ec');
    expect(full.ca.certificatePem).toBe(certificates.ca.certificatePem);
    expect((await readdir(other)).sort()).toEqual(FILES);
    // A key on disk is neither read nor checked by the certificates-only call.
    await writeFile(join(other, 'sa.key'), 'not a key');
    await expect(ensureClusterCertificates(other)).resolves.toMatchObject({ dir: other });
  });

  it('writes sa.pub again from sa.key when it is missing', async () => {
    const copy = await copyOfPki();
    await unlink(join(copy, 'sa.pub'));
    const again = await ensureClusterPki(copy);
    expect(again.serviceAccount.publicKeyPem).toBe(pki.serviceAccount.publicKeyPem);
    expect(await readFile(join(copy, 'sa.pub'), 'utf8')).toBe(pki.serviceAccount.publicKeyPem);
  });

  describe('refuses files it cannot trust, naming them, and changes nothing', () => {
    async function expectRefusal(copy: string, file: string, message: RegExp): Promise<void> {
      const before = await readAll(copy).catch(() => undefined);
      const error = await ensureClusterPki(copy).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(PkiFileError);
      expect((error as PkiFileError).path).toBe(join(copy, file));
      expect((error as PkiFileError).message).toMatch(message);
      expect((error as PkiFileError).message.startsWith(`${join(copy, file)}: `)).toBe(true);
      if (before) expect(await readAll(copy)).toEqual(before);
    }

    it('a corrupt key file', async () => {
      const copy = await copyOfPki();
      await writeFile(join(copy, 'apiserver.key'), 'this is not a key\n');
      await expectRefusal(copy, 'apiserver.key', /no PEM private key found/);
    });

    it('a corrupt CA key: the CA is never regenerated', async () => {
      const copy = await copyOfPki();
      const key = await readFile(join(copy, 'ca.key'), 'utf8');
      await writeFile(join(copy, 'ca.key'), key.replace(/\n[A-Za-z0-9+/]{40}/, '\n!!!!'));
      await expectRefusal(copy, 'ca.key', /cannot parse the PEM private key/);
    });

    it('a corrupt certificate', async () => {
      const copy = await copyOfPki();
      await writeFile(join(copy, 'ca.crt'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      await expectRefusal(copy, 'ca.crt', /cannot parse the PEM certificate/);
    });

    it('a key that does not match its certificate', async () => {
      const copy = await copyOfPki();
      await writeFile(join(copy, 'apiserver.key'), pki.admin.privateKeyPem);
      await expectRefusal(
        copy,
        'apiserver.key',
        /private key does not match the certificate in .*apiserver\.crt$/,
      );
    });

    it('a certificate another CA issued', async () => {
      const copy = await copyOfPki();
      const otherCa = await createCertificateAuthority({
        commonName: 'kubernetes',
        keyPair: {
          privateKeyPem: pki.serviceAccount.privateKeyPem,
          publicKeyPem: pki.serviceAccount.publicKeyPem,
        },
      });
      const foreign = await issueClientCertificate(otherCa, {
        user: 'kubernetes-admin',
        keyPair: {
          privateKeyPem: pki.admin.privateKeyPem,
          publicKeyPem: publicKeyPemOf(parsePrivateKeyPem(pki.admin.privateKeyPem)),
        },
      });
      await writeFile(join(copy, 'admin.crt'), foreign.certificatePem);
      await expectRefusal(copy, 'admin.crt', /was not issued by the cluster CA in .*ca\.crt$/);
    });

    it('a CA certificate that is not a CA', async () => {
      const copy = await copyOfPki();
      await writeFile(join(copy, 'ca.crt'), pki.admin.certificatePem);
      await writeFile(join(copy, 'ca.key'), pki.admin.privateKeyPem);
      await expectRefusal(copy, 'ca.crt', /is not a CA/);
    });

    it('a missing CA while certificates it issued remain', async () => {
      const copy = await copyOfPki();
      await unlink(join(copy, 'ca.crt'));
      await unlink(join(copy, 'ca.key'));
      await expectRefusal(copy, 'ca.crt', /missing but .*apiserver\.crt exists; refusing to create a new CA/);
      expect(await readdir(copy)).not.toContain('ca.key');
    });

    it('half a pair', async () => {
      const copy = await copyOfPki();
      await unlink(join(copy, 'admin.key'));
      await expectRefusal(copy, 'admin.key', /missing but .*admin\.crt exists/);
    });

    it('a service-account key tokens cannot be signed with', async () => {
      const copy = await copyOfPki();
      const { privateKey } = generateKeyPairSync('ed25519');
      await writeFile(join(copy, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
      await expectRefusal(
        copy,
        'sa.key',
        /signed with RSA or ECDSA \(P-256, P-384, P-521\) keys, found ed25519/,
      );
    });

    it('a service-account public key that does not match sa.key', async () => {
      const copy = await copyOfPki();
      await writeFile(join(copy, 'sa.pub'), publicKeyPemOf(pki.ca.privateKey));
      await expectRefusal(copy, 'sa.pub', /public key does not match the private key in .*sa\.key$/);
    });
  });

  it('rejects an invalid SAN before touching the directory', async () => {
    const fresh = join(root, 'never-created');
    await expect(
      ensureClusterPki(fresh, { apiServerSans: { ipAddresses: ['10.96.0.256'] } }),
    ).rejects.toThrow('invalid IP address for the apiserver certificate: "10.96.0.256"');
    await expect(stat(fresh)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('issues node client certificates from the cluster CA', async () => {
    const node = await issueNodeClientCertificate(pki, 'worker-1');
    const certificate = new X509Certificate(node.certificatePem);
    expect(certificate.subject).toBe('O=system:nodes\nCN=system:node:worker-1');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(certificate.verify(pki.ca.certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(parsePrivateKeyPem(node.privateKeyPem))).toBe(true);
    await expect(issueNodeClientCertificate(pki, '')).rejects.toThrow(/needs a node name/);
  });
});
