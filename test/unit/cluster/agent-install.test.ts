// The agent's files on the host: each node's directories under the cluster's state directory,
// the mounts that put them into the node, and the install that fills them (the start program
// last, every file whole, keys private).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../../src/agent/config.js';
import { agentDirectories, removeAgentDirectories } from '../../../src/cluster/nodes/agent-directories.js';
import {
  type AgentBundle,
  installAgent,
  issueClusterDnsCertificate,
  issueKubeProxyCertificate,
  issueNodeCertificate,
  issuePodNetworkCertificate,
  prepareAgentMounts,
} from '../../../src/cluster/nodes/agent-install.js';
import type { PlannedNode } from '../../../src/cluster/nodes/node-plan.js';
import { createCertificateAuthority } from '../../../src/pki/certificate-authority.js';

const NODE: PlannedNode = {
  index: 1,
  name: 'demo-node-1',
  role: 'worker',
  ip: '172.30.5.11',
  labels: {},
  portMappings: [],
  mounts: [],
  podCIDR: '10.244.254.0/24',
};
const BUNDLE: AgentBundle = {
  entry: 'import "./agent.cjs";\n',
  program: 'module.exports = {};\n',
  codeCache: new Uint8Array([1, 2, 3]),
};

let clusterDir: string;
beforeEach(() => {
  clusterDir = mkdtempSync(join(tmpdir(), 'tkube-agent-install-'));
});
afterEach(() => rmSync(clusterDir, { recursive: true, force: true }));

async function install(bundle: AgentBundle = BUNDLE): Promise<void> {
  const ca = await createCertificateAuthority({ commonName: 'kubernetes' });
  const [network, dns, proxy, credentials] = await Promise.all([
    issuePodNetworkCertificate(ca),
    issueClusterDnsCertificate(ca),
    issueKubeProxyCertificate(ca),
    issueNodeCertificate(ca, NODE.name),
  ]);
  await installAgent(clusterDir, {
    node: NODE,
    server: 'https://172.30.5.1:6443',
    ca,
    credentials,
    network,
    dns,
    proxy,
    bundle,
    podSubnet: '10.244.0.0/16',
  });
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('agent files on the host', () => {
  it('mounts the node directory: configuration read-only at /etc/tkube, the program at /opt/tkube/agent, an emptied run directory', async () => {
    const dirs = agentDirectories(clusterDir, NODE.name);
    // A ready marker left by an earlier node of that name would end the next wait at once.
    mkdirSync(dirs.run, { recursive: true });
    writeFileSync(join(dirs.run, 'containerd.ready'), '');
    const mounts = await prepareAgentMounts(clusterDir, NODE.name);
    expect(mounts).toEqual([
      { hostPath: dirs.config, containerPath: '/etc/tkube', readOnly: true },
      { hostPath: dirs.program, containerPath: '/opt/tkube/agent' },
      { hostPath: dirs.run, containerPath: '/run/tkube' },
    ]);
    expect(dirs.config).toBe(join(clusterDir, 'nodes', NODE.name, 'etc'));
    // Empty, and the host user's alone (they will hold keys).
    for (const dir of [dirs.config, dirs.program, dirs.run]) {
      expect(readdirSync(dir)).toEqual([]);
      expect(mode(dir)).toBe(0o700);
    }
  });

  it('writes the configuration, certificates and bundle where the agent config says they are', async () => {
    await prepareAgentMounts(clusterDir, NODE.name);
    await install();
    const dirs = agentDirectories(clusterDir, NODE.name);
    const config = JSON.parse(readFileSync(join(dirs.config, 'agent.json'), 'utf8')) as AgentConfig;
    expect(config).toMatchObject({
      nodeName: NODE.name,
      nodeIP: NODE.ip,
      server: 'https://172.30.5.1:6443',
      podSubnet: '10.244.0.0/16',
      podCIDR: NODE.podCIDR,
    });
    // Every file the config names exists under the mounted directory: /etc/tkube/X is config/X.
    const named = [
      config.caFile,
      config.certFile,
      config.keyFile,
      config.networkCertFile,
      config.networkKeyFile,
      config.dnsCertFile,
      config.dnsKeyFile,
      config.proxyCertFile,
      config.proxyKeyFile,
      config.servingCertFile,
      config.servingKeyFile,
    ];
    for (const path of named) {
      expect(path).toMatch(/^\/etc\/tkube\/pki\//);
      const onHost = join(dirs.config, path!.slice('/etc/tkube/'.length));
      const text = readFileSync(onHost, 'utf8');
      expect(text).toMatch(path!.endsWith('.key') ? /PRIVATE KEY/ : /BEGIN CERTIFICATE/);
      expect(mode(onHost), path).toBe(path!.endsWith('.key') ? 0o600 : 0o644);
    }
    expect(readFileSync(join(dirs.program, 'agent.cjs'), 'utf8')).toBe(BUNDLE.program);
    expect(readFileSync(join(dirs.program, 'agent.mjs'), 'utf8')).toBe(BUNDLE.entry);
    expect([...readFileSync(join(dirs.program, 'agent.cjs.cache'))]).toEqual([1, 2, 3]);
    expect(readFileSync(join(dirs.program, 'start'), 'utf8')).toBe(
      '#!/bin/sh\nSSL_CERT_FILE=/dev/null SSL_CERT_DIR=/dev/null NODE_OPTIONS=--use-openssl-ca exec node /opt/tkube/agent/agent.mjs /etc/tkube/agent.json\n',
    );
    expect(mode(join(dirs.program, 'start'))).toBe(0o755);
    // Nothing written aside is left behind.
    expect(readdirSync(dirs.program).sort()).toEqual(['agent.cjs', 'agent.cjs.cache', 'agent.mjs', 'start']);
    expect(readdirSync(dirs.config).sort()).toEqual(['agent.json', 'pki']);
  });

  it('writes the start program after everything else, so the entrypoint never starts half an agent', async () => {
    await prepareAgentMounts(clusterDir, NODE.name);
    await install();
    const dirs = agentDirectories(clusterDir, NODE.name);
    const changed = (path: string) => statSync(path, { bigint: true }).ctimeNs;
    const start = changed(join(dirs.program, 'start'));
    const others = [
      ...['agent.cjs', 'agent.cjs.cache', 'agent.mjs'].map((file) => join(dirs.program, file)),
      join(dirs.config, 'agent.json'),
      ...readdirSync(join(dirs.config, 'pki')).map((file) => join(dirs.config, 'pki', file)),
    ];
    for (const path of others) expect(changed(path) <= start, path).toBe(true);
  });

  it('installs without a code cache when the build left none', async () => {
    await install({ entry: BUNDLE.entry, program: BUNDLE.program });
    const dirs = agentDirectories(clusterDir, NODE.name);
    expect(readdirSync(dirs.program).sort()).toEqual(['agent.cjs', 'agent.mjs', 'start']);
  });

  it('removes a node directory with everything in it, and a missing one quietly', async () => {
    await prepareAgentMounts(clusterDir, NODE.name);
    await install();
    await removeAgentDirectories(clusterDir, NODE.name);
    expect(readdirSync(join(clusterDir, 'nodes'))).toEqual([]);
    await expect(removeAgentDirectories(clusterDir, NODE.name)).resolves.toBeUndefined();
  });
});
