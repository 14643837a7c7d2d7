// The agent's node registration while the API server is not there yet, as `tkube up` starts the
// agents beside the control plane: it retries (logging a failure once per message) and
// registers as soon as a real control plane answers on its port, over real TLS.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemInfo } from '../../../src/agent/node/node-object.js';
import { NodeStatusManager } from '../../../src/agent/node/node-status.js';
import type { Node } from '../../../src/api/types/core-v1.generated.js';
import { NODES } from '../../../src/client/resources.js';
import { httpsClient } from '../../../src/client/transports.js';
import type { Client } from '../../../src/client/types.js';
import { issueNodeCertificate } from '../../../src/cluster/nodes/agent-install.js';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { freePort } from '../../support/postgres-server.js';

const stateDir = mkdtempSync(join(tmpdir(), 'tkube-agent-register-'));
let controlPlane: RunningControlPlane | undefined;
afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const facts = {
  resources: {
    capacity: { cpu: '2', memory: '2Gi', pods: '110' },
    allocatable: { cpu: '2', memory: '2Gi', pods: '110' },
  },
  systemInfo: systemInfo({
    machineID: 'm',
    systemUUID: 'm',
    bootID: 'b',
    kernelVersion: '6.1.0',
    osImage: 'test',
    containerRuntimeVersion: 'containerd://1.6.20',
  }),
};

/** The agent's status manager for a node whose facts and health are fixed (ready). */
function nodeStatus(client: Client, name: string, internalIP: string): NodeStatusManager {
  return new NodeStatusManager(
    client,
    { name, internalIP, labels: {}, taints: [] },
    {
      facts: async () => facts,
      health: async () => ({
        notReadyReasons: [],
        memoryPressure: false,
        diskPressure: false,
        pidPressure: false,
      }),
    },
  );
}

describe('agent registration before the API server answers', () => {
  it('retries until the control plane starts on its port, then registers the node', async () => {
    const pki = await ensureClusterPki(join(stateDir, 'pki'));
    const port = await freePort();
    const credentials = await issueNodeCertificate(pki.ca, 'early');
    const client = httpsClient({
      server: `https://127.0.0.1:${port}`,
      ca: pki.ca.certificatePem,
      cert: credentials.certificatePem,
      key: credentials.privateKeyPem,
      component: 'kubelet',
    });
    const status = nodeStatus(client, 'early', '10.0.0.9');
    const logs: string[] = [];
    const abort = new AbortController();
    try {
      const registered = status.registerWithRetry(abort.signal, (line) => logs.push(line));
      // Several attempts find nothing listening.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(logs.length).toBe(1);
      expect(logs[0]).toMatch(/^unable to register node early with the API server: .*ECONNREFUSED/);
      controlPlane = await startControlPlane({ stateDir, apiPort: port });
      const node = await registered;
      expect(node.metadata?.name).toBe('early');
      const stored = await client.resource<Node>(NODES).get('', 'early');
      expect(stored.status?.nodeInfo?.containerRuntimeVersion).toBe('containerd://1.6.20');
    } finally {
      abort.abort();
      await client.close();
    }
  }, 60_000);

  it('gives up when stopped', async () => {
    const client = httpsClient({ server: `https://127.0.0.1:${await freePort()}`, component: 'kubelet' });
    const status = nodeStatus(client, 'stopped', '10.0.0.8');
    const abort = new AbortController();
    const attempt = status.registerWithRetry(abort.signal, () => {});
    setTimeout(() => abort.abort(), 300);
    await expect(attempt).rejects.toThrow(/abort/i);
    await client.close();
  });
});
