import type { KeyObject, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import {
  type CertificateAuthority,
  certificateNotAfter,
  createCertificateAuthority,
  loadCertificateAuthority,
  parseCertificatePem,
} from './certificate-authority.js';
import {
  certificateSubjectAltNames,
  type IssuedCertificate,
  issueClientCertificate,
  issueServingCertificate,
} from './certificates.js';
import { CLUSTER_PKI_FILE_NAMES } from './cluster-pki-file-names.js';
import { canonicalIpAddress } from './ip-address.js';
import {
  generateEcdsaKeyPair,
  isSamePublicKey,
  type KeyPair,
  parseLeafPrivateKeyPem,
  parsePublicKeyPem,
  publicKeyPemOf,
} from './keys.js';
import {
  ensurePrivateDirectory,
  PkiFileError,
  PRIVATE_FILE_MODE,
  PUBLIC_FILE_MODE,
  readOptionalFile,
  writeFileAtomically,
} from './pki-files.js';
import { loadServiceAccountSigningKey } from './service-account-tokens.js';

export const DEFAULT_CA_COMMON_NAME = 'kubernetes';
export const API_SERVER_COMMON_NAME = 'kube-apiserver';
export const ADMIN_USER = 'kubernetes-admin';
export const ADMIN_GROUP = 'system:masters';
export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
/** kube-apiserver's identity towards kubelets (logs, exec, port-forward), as kubeadm names it. */
export const API_SERVER_KUBELET_CLIENT_COMMON_NAME = 'kube-apiserver-kubelet-client';
export const API_SERVER_KUBELET_CLIENT_FILE_NAMES = {
  certificate: 'apiserver-kubelet-client.crt',
  key: 'apiserver-kubelet-client.key',
} as const;

/** Names every client uses for the apiserver: loopback and the in-cluster `kubernetes` Service. */
export const DEFAULT_API_SERVER_DNS_NAMES: readonly string[] = [
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];
/** Loopback and the `kubernetes` Service's ClusterIP (the first address of 10.96.0.0/12). */
export const DEFAULT_API_SERVER_IP_ADDRESSES: readonly string[] = ['127.0.0.1', '10.96.0.1'];

/** Leaf certificates this close to expiry are re-issued (same key, same CA). */
export const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

export interface SubjectAltNameRequest {
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

export interface ClusterPkiOptions {
  /** Names and addresses the apiserver serving certificate must cover besides the defaults. */
  apiServerSans?: SubjectAltNameRequest;
  /** CN of a CA created now; an existing CA keeps its own. */
  caCommonName?: string;
}

export interface StoredCertificate extends IssuedCertificate {
  certificatePath: string;
  privateKeyPath: string;
}

export interface StoredCertificateAuthority extends CertificateAuthority {
  certificatePath: string;
  privateKeyPath: string;
}

/** The key pair that signs and verifies service-account tokens. */
export interface ServiceAccountKeys {
  privateKeyPem: string;
  publicKeyPem: string;
  privateKeyPath: string;
  publicKeyPath: string;
}

/** The cluster CA and the certificates made with it. */
export interface ClusterCertificates {
  dir: string;
  ca: StoredCertificateAuthority;
  /** The apiserver's serving certificate. */
  apiServer: StoredCertificate;
  /** The cluster admin's client certificate (kubernetes-admin, system:masters). */
  admin: StoredCertificate;
}

export interface ClusterPki extends ClusterCertificates {
  serviceAccount: ServiceAccountKeys;
}

/** A certificate file and its key file, as found on disk. */
interface PemPair {
  certificatePath: string;
  keyPath: string;
  certificatePem: string | undefined;
  keyPem: string | undefined;
}

interface LoadedLeaf {
  certificate: X509Certificate;
  privateKey: KeyObject;
}

/**
 * Creates the cluster PKI in `dir`, or loads it if present. Existing files are checked (PEM
 * parses, key matches certificate, leaf issued by the CA) and never silently replaced: a file
 * that fails a check raises a PkiFileError naming it. Only the leaf certificates are ever
 * re-issued, with their existing keys: the serving certificate when it lacks a requested SAN,
 * either one when it is about to expire.
 */
export async function ensureClusterPki(dir: string, options: ClusterPkiOptions = {}): Promise<ClusterPki> {
  return (await ensurePki(dir, options, true)) as ClusterPki;
}

/**
 * ensureClusterPki without the service-account key: the CLI's commands need only the certificates,
 * and the key is made, read and checked by the process that signs with it (the control plane, or
 * the supervisor of several). A key file on disk is neither read nor checked here.
 */
export async function ensureClusterCertificates(
  dir: string,
  options: ClusterPkiOptions = {},
): Promise<ClusterCertificates> {
  return ensurePki(dir, options, false);
}

async function ensurePki(
  dir: string,
  options: ClusterPkiOptions,
  withServiceAccountKey: boolean,
): Promise<ClusterCertificates & { serviceAccount?: ServiceAccountKeys }> {
  const sans = apiServerSubjectAltNames(options.apiServerSans ?? {});
  await ensurePrivateDirectory(dir);
  const path = (name: keyof typeof CLUSTER_PKI_FILE_NAMES) => join(dir, CLUSTER_PKI_FILE_NAMES[name]);
  const [caPair, apiServerPair, adminPair] = await Promise.all([
    readPemPair(path('caCertificate'), path('caKey')),
    readPemPair(path('apiServerCertificate'), path('apiServerKey')),
    readPemPair(path('adminCertificate'), path('adminKey')),
  ]);
  const saKeyPem = withServiceAccountKey ? await readOptionalFile(path('serviceAccountKey')) : undefined;
  const saPublicKeyPem = withServiceAccountKey
    ? await readOptionalFile(path('serviceAccountPublicKey'))
    : undefined;

  // Check everything on disk before generating anything, so a bad file changes nothing.
  for (const pair of [caPair, apiServerPair, adminPair]) assertWholePair(pair);
  if (saKeyPem === undefined && saPublicKeyPem !== undefined) {
    throw new PkiFileError(
      path('serviceAccountKey'),
      `file is missing but ${path('serviceAccountPublicKey')} exists; restore it or remove both`,
    );
  }
  const existingCa = caPair.certificatePem === undefined ? undefined : loadStoredCa(caPair);
  if (existingCa === undefined) {
    const orphan = [apiServerPair, adminPair].find((pair) => pair.certificatePem !== undefined);
    if (orphan) {
      throw new PkiFileError(
        caPair.certificatePath,
        `file is missing but ${orphan.certificatePath} exists; refusing to create a new CA that would not match it`,
      );
    }
  }
  const existingApiServer = existingCa && loadStoredLeaf(apiServerPair, existingCa, caPair.certificatePath);
  const existingAdmin = existingCa && loadStoredLeaf(adminPair, existingCa, caPair.certificatePath);
  const existingSa =
    saKeyPem === undefined ? undefined : loadServiceAccountKey(saKeyPem, saPublicKeyPem, path);

  // Every key is ECDSA P-256, as kubeadm's encryptionAlgorithm ECDSA-P256 makes them, the
  // service-account key too (tokens are then ES256): a millisecond each, where one RSA 2048 key
  // took 200-500 ms of a core on every new cluster's start. Keys made before stay as they are.
  const [caKeys, apiServerKeys, adminKeys, saKeys] = await Promise.all([
    existingCa ? undefined : generateEcdsaKeyPair(),
    existingApiServer ? undefined : generateEcdsaKeyPair(),
    existingAdmin ? undefined : generateEcdsaKeyPair(),
    existingSa || !withServiceAccountKey ? undefined : generateEcdsaKeyPair(),
  ]);

  const writes: Promise<void>[] = [];
  const writePem = (file: string, pem: string, mode: number) =>
    writes.push(writeFileAtomically(file, pem, mode));

  let ca: CertificateAuthority;
  if (existingCa) {
    ca = existingCa;
  } else {
    ca = await createCertificateAuthority({
      commonName: options.caCommonName ?? DEFAULT_CA_COMMON_NAME,
      keyPair: caKeys,
    });
    writePem(caPair.keyPath, ca.privateKeyPem, PRIVATE_FILE_MODE);
    writePem(caPair.certificatePath, ca.certificatePem, PUBLIC_FILE_MODE);
  }

  const apiServer = await ensureLeaf(apiServerPair, existingApiServer, apiServerKeys, writePem, {
    isCurrent: (certificate) => coversSubjectAltNames(certificate, sans),
    issue: (keyPair) => issueServingCertificate(ca, { commonName: API_SERVER_COMMON_NAME, ...sans, keyPair }),
  });
  const admin = await ensureLeaf(adminPair, existingAdmin, adminKeys, writePem, {
    isCurrent: () => true,
    issue: (keyPair) => issueClientCertificate(ca, { user: ADMIN_USER, groups: [ADMIN_GROUP], keyPair }),
  });

  let serviceAccount: ServiceAccountKeys | undefined;
  if (withServiceAccountKey) {
    serviceAccount = {
      privateKeyPem: existingSa?.privateKeyPem ?? saKeys!.privateKeyPem,
      publicKeyPem: existingSa?.publicKeyPem ?? saKeys!.publicKeyPem,
      privateKeyPath: path('serviceAccountKey'),
      publicKeyPath: path('serviceAccountPublicKey'),
    };
    if (!existingSa) writePem(serviceAccount.privateKeyPath, serviceAccount.privateKeyPem, PRIVATE_FILE_MODE);
    if (saPublicKeyPem === undefined) {
      writePem(serviceAccount.publicKeyPath, serviceAccount.publicKeyPem, PUBLIC_FILE_MODE);
    }
  }

  await Promise.all(writes);
  return {
    dir,
    ca: { ...ca, certificatePath: caPair.certificatePath, privateKeyPath: caPair.keyPath },
    apiServer,
    admin,
    ...(serviceAccount && { serviceAccount }),
  };
}

/**
 * The apiserver's client certificate for kubelets (CN kube-apiserver-kubelet-client, O
 * system:masters) next to the cluster PKI: loaded when present and valid, re-issued with its key
 * when about to expire, created otherwise.
 */
export async function ensureApiServerKubeletClientCertificate(
  pki: Pick<ClusterPki, 'dir' | 'ca'>,
): Promise<StoredCertificate> {
  const pair = await readPemPair(
    join(pki.dir, API_SERVER_KUBELET_CLIENT_FILE_NAMES.certificate),
    join(pki.dir, API_SERVER_KUBELET_CLIENT_FILE_NAMES.key),
  );
  assertWholePair(pair);
  const existing = loadStoredLeaf(pair, pki.ca, pki.ca.certificatePath);
  const keys = existing ? undefined : await generateEcdsaKeyPair();
  const writes: Promise<void>[] = [];
  const leaf = await ensureLeaf(
    pair,
    existing,
    keys,
    (file, pem, mode) => writes.push(writeFileAtomically(file, pem, mode)),
    {
      isCurrent: () => true,
      issue: (keyPair) =>
        issueClientCertificate(pki.ca, {
          user: API_SERVER_KUBELET_CLIENT_COMMON_NAME,
          groups: [ADMIN_GROUP],
          keyPair,
        }),
    },
  );
  await Promise.all(writes);
  return leaf;
}

/** Issues a kubelet's client certificate: CN `system:node:<name>`, O `system:nodes`, as the Node authorizer expects. */
export async function issueNodeClientCertificate(
  pki: Pick<ClusterPki, 'ca'>,
  nodeName: string,
): Promise<IssuedCertificate> {
  if (nodeName === '') {
    throw new Error('a node client certificate needs a node name');
  }
  return issueClientCertificate(pki.ca, { user: `${NODE_USER_PREFIX}${nodeName}`, groups: [NODES_GROUP] });
}

/** The defaults plus the caller's names, deduplicated: DNS names lowercased, addresses canonical. */
function apiServerSubjectAltNames(extra: SubjectAltNameRequest): {
  dnsNames: string[];
  ipAddresses: string[];
} {
  const dnsNames = [...DEFAULT_API_SERVER_DNS_NAMES, ...(extra.dnsNames ?? [])].map((name) => {
    if (!/^[^\s,]+$/.test(name)) {
      throw new Error(`invalid DNS name for the apiserver certificate: ${JSON.stringify(name)}`);
    }
    return name.toLowerCase();
  });
  const ipAddresses = [...DEFAULT_API_SERVER_IP_ADDRESSES, ...(extra.ipAddresses ?? [])].map((address) => {
    try {
      return canonicalIpAddress(address);
    } catch {
      throw new Error(`invalid IP address for the apiserver certificate: ${JSON.stringify(address)}`);
    }
  });
  return { dnsNames: [...new Set(dnsNames)], ipAddresses: [...new Set(ipAddresses)] };
}

function coversSubjectAltNames(
  certificate: X509Certificate,
  wanted: { dnsNames: string[]; ipAddresses: string[] },
): boolean {
  const present = certificateSubjectAltNames(certificate);
  const dnsNames = new Set(present.dnsNames.map((name) => name.toLowerCase()));
  const ipAddresses = new Set(present.ipAddresses);
  return (
    wanted.dnsNames.every((name) => dnsNames.has(name)) &&
    wanted.ipAddresses.every((ip) => ipAddresses.has(ip))
  );
}

async function ensureLeaf(
  pair: PemPair,
  existing: LoadedLeaf | undefined,
  newKeys: KeyPair | undefined,
  writePem: (file: string, pem: string, mode: number) => void,
  policy: {
    isCurrent: (certificate: X509Certificate) => boolean;
    issue: (keyPair: KeyPair) => Promise<IssuedCertificate>;
  },
): Promise<StoredCertificate> {
  const paths = { certificatePath: pair.certificatePath, privateKeyPath: pair.keyPath };
  if (existing === undefined) {
    const issued = await policy.issue(newKeys!);
    writePem(pair.keyPath, issued.privateKeyPem, PRIVATE_FILE_MODE);
    writePem(pair.certificatePath, issued.certificatePem, PUBLIC_FILE_MODE);
    return { ...issued, ...paths };
  }
  const expiring = certificateNotAfter(existing.certificate).getTime() - Date.now() < RENEW_BEFORE_MS;
  if (!expiring && policy.isCurrent(existing.certificate)) {
    return { certificatePem: pair.certificatePem!, privateKeyPem: pair.keyPem!, ...paths };
  }
  const reissued = await policy.issue({
    privateKeyPem: pair.keyPem!,
    publicKeyPem: publicKeyPemOf(existing.privateKey),
  });
  writePem(pair.certificatePath, reissued.certificatePem, PUBLIC_FILE_MODE);
  return { ...reissued, ...paths };
}

async function readPemPair(certificatePath: string, keyPath: string): Promise<PemPair> {
  const [certificatePem, keyPem] = await Promise.all([
    readOptionalFile(certificatePath),
    readOptionalFile(keyPath),
  ]);
  return { certificatePath, keyPath, certificatePem, keyPem };
}

function assertWholePair(pair: PemPair): void {
  if (pair.certificatePem !== undefined && pair.keyPem === undefined) {
    throw new PkiFileError(pair.keyPath, `file is missing but ${pair.certificatePath} exists`);
  }
  if (pair.certificatePem === undefined && pair.keyPem !== undefined) {
    throw new PkiFileError(pair.certificatePath, `file is missing but ${pair.keyPath} exists`);
  }
}

/** Runs a check and reports its failure as a problem of `file`. */
function inFile<T>(file: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof PkiFileError) throw error;
    throw new PkiFileError(file, error instanceof Error ? error.message : String(error));
  }
}

function loadCertificateAndKey(pair: PemPair): LoadedLeaf {
  const certificate = inFile(pair.certificatePath, () => parseCertificatePem(pair.certificatePem!));
  const privateKey = inFile(pair.keyPath, () => parseLeafPrivateKeyPem(pair.keyPem!));
  if (!isSamePublicKey(privateKey, certificate.publicKey)) {
    throw new PkiFileError(
      pair.keyPath,
      `private key does not match the certificate in ${pair.certificatePath}`,
    );
  }
  return { certificate, privateKey };
}

function loadStoredCa(pair: PemPair): CertificateAuthority {
  loadCertificateAndKey(pair);
  // Key and certificate match, so what is left to fail is the certificate: not a CA, or expired.
  return inFile(pair.certificatePath, () => loadCertificateAuthority(pair.certificatePem!, pair.keyPem!));
}

function loadStoredLeaf(pair: PemPair, ca: CertificateAuthority, caPath: string): LoadedLeaf | undefined {
  if (pair.certificatePem === undefined) {
    return undefined;
  }
  const leaf = loadCertificateAndKey(pair);
  const signedByCa = inFile(
    pair.certificatePath,
    () => leaf.certificate.checkIssued(ca.certificate) && leaf.certificate.verify(ca.certificate.publicKey),
  );
  if (!signedByCa) {
    throw new PkiFileError(pair.certificatePath, `certificate was not issued by the cluster CA in ${caPath}`);
  }
  return leaf;
}

function loadServiceAccountKey(
  privateKeyPem: string,
  publicKeyPem: string | undefined,
  path: (name: 'serviceAccountKey' | 'serviceAccountPublicKey') => string,
): { privateKeyPem: string; publicKeyPem: string } {
  const privateKey = inFile(
    path('serviceAccountKey'),
    () => loadServiceAccountSigningKey(privateKeyPem).privateKey,
  );
  if (publicKeyPem === undefined) {
    // The public half can always be derived again; only the private key is irreplaceable.
    return { privateKeyPem, publicKeyPem: publicKeyPemOf(privateKey) };
  }
  const publicKey = inFile(path('serviceAccountPublicKey'), () => parsePublicKeyPem(publicKeyPem));
  if (!isSamePublicKey(privateKey, publicKey)) {
    throw new PkiFileError(
      path('serviceAccountPublicKey'),
      `public key does not match the private key in ${path('serviceAccountKey')}`,
    );
  }
  return { privateKeyPem, publicKeyPem };
}
