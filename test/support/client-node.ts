import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import {
  type ControlPlaneOptions,
  type RunningControlPlane,
  startControlPlane,
} from '../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../src/pki/cluster-pki.js';

export interface ClientNodeControlPlane {
  readonly controlPlane: RunningControlPlane;
  /** @kubernetes/client-node configuration of the cluster admin, over real TLS. */
  readonly kubeConfig: KubeConfig;
  stop(): Promise<void>;
}

/**
 * The control plane in this process on a temporary state directory, with a client-node
 * KubeConfig for its admin: for tests that check what a real client sees.
 */
export async function startClientNodeControlPlane(
  options: Omit<ControlPlaneOptions, 'stateDir' | 'apiPort'> = {},
): Promise<ClientNodeControlPlane> {
  const stateDir = mkdtempSync(join(tmpdir(), 'tkube-client-node-'));
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  const controlPlane = await startControlPlane({ stateDir, apiPort: 0, ...options });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: 'tkube',
        server: `https://127.0.0.1:${controlPlane.port}`,
        caData: Buffer.from(pki.ca.certificatePem).toString('base64'),
        skipTLSVerify: false,
      },
    ],
    users: [
      {
        name: 'admin',
        certData: Buffer.from(pki.admin.certificatePem).toString('base64'),
        keyData: Buffer.from(pki.admin.privateKeyPem).toString('base64'),
      },
    ],
    contexts: [{ name: 'tkube', cluster: 'tkube', user: 'admin' }],
    currentContext: 'tkube',
  });
  return {
    controlPlane,
    kubeConfig,
    async stop() {
      await controlPlane.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
