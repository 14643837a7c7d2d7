// A tkube cluster's kubeconfig: built from the cluster PKI, merged into or removed from the
// user's kubeconfig file under client-go's lock.
import { access, chmod, constants, readFile, writeFile } from 'node:fs/promises';
import { errorCode } from './errors.js';
import { type KubeconfigEntry, mergeKubeconfigEntry, removeKubeconfigEntry } from './kubeconfig-document.js';
import { type FileLockOptions, unwritableKubeconfigError, withFileLock } from './kubeconfig-lock.js';
import { kubeconfigContextName } from './name.js';

export type { KubeconfigEntry } from './kubeconfig-document.js';
export { renderKubeconfig } from './kubeconfig-document.js';

/** A new kubeconfig file is private: it holds the admin's key. */
export const KUBECONFIG_FILE_MODE = 0o600;

export interface AdminCredentials {
  caCertificatePem: string;
  clientCertificatePem: string;
  clientKeyPem: string;
}

export function apiServerUrl(apiPort: number): string {
  return apiServerUrlAt('127.0.0.1', apiPort);
}

/** The apiserver at another of its addresses (the node network's gateway, for nodes). */
export function apiServerUrlAt(address: string, apiPort: number): string {
  return `https://${address}:${apiPort}`;
}

/** The entry for cluster `clusterName`: cluster, user and context all named `tkube-<name>`. */
export function kubeconfigEntry(
  clusterName: string,
  server: string,
  credentials: AdminCredentials,
): KubeconfigEntry {
  const base64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');
  return {
    name: kubeconfigContextName(clusterName),
    server,
    certificateAuthorityData: base64(credentials.caCertificatePem),
    clientCertificateData: base64(credentials.clientCertificatePem),
    clientKeyData: base64(credentials.clientKeyPem),
  };
}

/** Merges the entry into `file` (created 0600 if absent) and, by default, makes it the current context. */
export async function writeKubeconfigEntry(
  file: string,
  entry: KubeconfigEntry,
  options: { setCurrentContext?: boolean; lock?: FileLockOptions } = {},
): Promise<void> {
  await withFileLock(
    file,
    async () => {
      const text = await readKubeconfigFile(file);
      const merged = mergeKubeconfigEntry(text, entry, {
        setCurrentContext: options.setCurrentContext ?? true,
        source: file,
      });
      await writeKubeconfigFile(file, merged, text === undefined);
    },
    options.lock,
  );
}

/** Removes entry `name` from `file` if present; returns whether the file changed. A missing file is left missing. */
export async function deleteKubeconfigEntry(
  file: string,
  name: string,
  options: { lock?: FileLockOptions } = {},
): Promise<boolean> {
  if ((await readKubeconfigFile(file)) === undefined) return false;
  return withFileLock(
    file,
    async () => {
      const text = await readKubeconfigFile(file);
      if (text === undefined) return false;
      const updated = removeKubeconfigEntry(text, name, file);
      if (updated === undefined) return false;
      await writeKubeconfigFile(file, updated, false);
      return true;
    },
    options.lock,
  );
}

/**
 * Fails early, before a cluster is built, when `file` could not be written: takes and releases
 * the lock (which creates the directory) and checks the file itself is writable.
 */
export async function assertKubeconfigWritable(
  file: string,
  options: { lock?: FileLockOptions } = {},
): Promise<void> {
  await withFileLock(
    file,
    async () => {
      try {
        await access(file, constants.W_OK);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw unwritableKubeconfigError(file, error);
      }
    },
    options.lock,
  );
}

async function readKubeconfigFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw unwritableKubeconfigError(file, error);
  }
}

/**
 * Writes in place, as client-go does: the file keeps its mode, owner, links and symlinks. The lock
 * is what protects against a concurrent writer.
 */
async function writeKubeconfigFile(file: string, text: string, created: boolean): Promise<void> {
  try {
    await writeFile(file, text, { mode: KUBECONFIG_FILE_MODE });
    if (created) await chmod(file, KUBECONFIG_FILE_MODE);
  } catch (error) {
    throw unwritableKubeconfigError(file, error);
  }
}
