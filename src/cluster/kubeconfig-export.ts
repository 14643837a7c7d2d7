// `tkube kubeconfig`: a cluster's kubeconfig from its record and PKI, printed or merged again
// (e.g. after the context was deleted or to write it into another file).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLUSTER_PKI_FILE_NAMES } from '../pki/cluster-pki-file-names.js';
import { ClusterError, errorCode, errorMessage } from './errors.js';
import {
  type KubeconfigEntry,
  kubeconfigEntry,
  renderKubeconfig,
  writeKubeconfigEntry,
} from './kubeconfig.js';
import { kubeconfigPathForMerge } from './kubeconfig-paths.js';
import { assertValidClusterName } from './name.js';
import { clusterPaths, type Environment, loadClusterRecord } from './state.js';

export async function clusterKubeconfigEntry(
  name: string,
  env: Environment = process.env,
): Promise<KubeconfigEntry> {
  assertValidClusterName(name);
  const paths = clusterPaths(name, env);
  const record = await loadClusterRecord(paths);
  const read = async (file: string) => {
    const path = join(paths.pkiDir, file);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      const problem = errorCode(error) === 'ENOENT' ? 'the file is missing' : errorMessage(error);
      throw new ClusterError(
        `cluster ${JSON.stringify(name)} is damaged: ${path}: ${problem}`,
        `remove it with "tkube down ${name}"`,
      );
    }
  };
  const [caCertificatePem, clientCertificatePem, clientKeyPem] = await Promise.all([
    read(CLUSTER_PKI_FILE_NAMES.caCertificate),
    read(CLUSTER_PKI_FILE_NAMES.adminCertificate),
    read(CLUSTER_PKI_FILE_NAMES.adminKey),
  ]);
  return kubeconfigEntry(name, record.server, { caCertificatePem, clientCertificatePem, clientKeyPem });
}

/** The cluster's standalone kubeconfig text, its context current. */
export async function clusterKubeconfig(name: string, env: Environment = process.env): Promise<string> {
  return renderKubeconfig(await clusterKubeconfigEntry(name, env));
}

/** Merges the cluster's entry into the kubeconfig file kubectl would use and makes it current. */
export async function exportKubeconfig(
  name: string,
  options: { kubeconfigPath?: string; env?: Environment } = {},
): Promise<{ file: string; context: string }> {
  const env = options.env ?? process.env;
  const entry = await clusterKubeconfigEntry(name, env);
  const file = kubeconfigPathForMerge(options.kubeconfigPath, env);
  await writeKubeconfigEntry(file, entry);
  return { file, context: entry.name };
}
