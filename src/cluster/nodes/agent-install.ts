// Puts the agent into a node: its bundle, its configuration, the node's client certificate, and
// the start program the node's entrypoint supervises (it restarts the agent after crashes and
// node restarts). The files live in the cluster's state directory on the host, bind-mounted into
// the node from its creation: no copy through the engine (an archive unpacked by a helper process
// per node), and the agent starts as soon as containerd runs.
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentConfig } from '../../agent/config.js';
import { KUBE_PROXY } from '../../apiserver/auth/rbac/bootstrap-policy.js';
import { CLUSTER_DNS_USER, POD_NETWORK_USER } from '../../controlplane/tkube-policy.js';
import type { CertificateAuthority } from '../../pki/certificate-authority.js';
import {
  type IssuedCertificate,
  issueClientCertificate,
  issueServingCertificate,
} from '../../pki/certificates.js';
import { NODE_USER_PREFIX, NODES_GROUP } from '../../pki/cluster-pki.js';
import { EMPTIED_OPENSSL_STORE_ENV } from '../../pki/deferred-default-trust.js';
import { ensurePrivateDirectory, PUBLIC_FILE_MODE, writeFileAtomically } from '../../pki/pki-files.js';
import { NODE_RUN_DIR } from '../../providers/docker/image/layout.js';
import type { NodeMount } from '../../providers/types.js';
import { ClusterError } from '../errors.js';
import { agentDirectories } from './agent-directories.js';
import type { PlannedNode } from './node-plan.js';

const AGENT_DIR = '/opt/tkube/agent';
const CONFIG_DIR = '/etc/tkube';
const CONFIG_PATH = `${CONFIG_DIR}/agent.json`;
const PKI_DIR = `${CONFIG_DIR}/pki`;

/**
 * The agent trusts only the CAs its configuration names (the cluster's): its TLS contexts take
 * OpenSSL's store, emptied, instead of Node.js's bundled roots, which Node parses (~140
 * certificates, 30-90 ms of CPU) for the first TLS context of a process whatever its `ca`.
 * NODE_OPTIONS rather than a flag: the single tkube executable, installed as node, reads no
 * runtime flags from its command line.
 */
const AGENT_START_PROGRAM = [
  '#!/bin/sh',
  `${Object.entries(EMPTIED_OPENSSL_STORE_ENV)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')} exec node ${AGENT_DIR}/agent.mjs ${CONFIG_PATH}`,
  '',
].join('\n');

/** dist/agent-bundle, built by `npm run build` (dist/cluster and src/cluster alike). */
export function agentBundleDir(): string {
  return fileURLToPath(new URL('../../../dist/agent-bundle', import.meta.url));
}

/** The agent's files as the build left them (scripts/build/bundle-agent.ts). */
export interface AgentBundle {
  /** agent.mjs: the entry the start program runs. */
  readonly entry: string;
  /** agent.cjs: the agent proper. */
  readonly program: string;
  /** agent.cjs.cache: its V8 code cache; without one the agent compiles and writes its own. */
  readonly codeCache?: Uint8Array;
}

export function readAgentBundle(dir = agentBundleDir()): AgentBundle {
  const [entry, program] = [join(dir, 'agent.mjs'), join(dir, 'agent.cjs')];
  for (const path of [entry, program]) {
    if (!existsSync(path)) {
      throw new ClusterError(`the node agent bundle is missing at ${path}`, 'run `npm run build` first');
    }
  }
  const cache = join(dir, 'agent.cjs.cache');
  return {
    entry: readFileSync(entry, 'utf8'),
    program: readFileSync(program, 'utf8'),
    ...(existsSync(cache) && { codeCache: readFileSync(cache) }),
  };
}

/** The node's own client certificate (`system:node:<name>`, group system:nodes). */
export function issueNodeCertificate(ca: CertificateAuthority, node: string): Promise<IssuedCertificate> {
  return issueClientCertificate(ca, { user: `${NODE_USER_PREFIX}${node}`, groups: [NODES_GROUP] });
}

export interface AgentInstall {
  readonly node: PlannedNode;
  readonly server: string;
  readonly ca: CertificateAuthority;
  readonly credentials: IssuedCertificate;
  /** The pod-network identity's certificate, shared by every node's agent. */
  readonly network: IssuedCertificate;
  /** The cluster DNS identity's certificate, shared by every node's agent. */
  readonly dns: IssuedCertificate;
  /** The proxy's `system:kube-proxy` certificate, shared by every node's agent. */
  readonly proxy: IssuedCertificate;
  readonly bundle: AgentBundle;
  readonly podSubnet: string;
}

/**
 * Makes a node's (still empty) agent directories and returns the mounts that put them into its
 * container: the entrypoint starts the agent once its start program appears there. The
 * configuration is read-only in the node; the program directory is not, so that an agent whose
 * code cache V8 rejects can write a fresh one. The entrypoint's run directory (its containerd-ready
 * marker, the agent's pid) is mounted too, emptied first, so that `up` sees containerd ready
 * without running a command in the node.
 */
export async function prepareAgentMounts(clusterDir: string, node: string): Promise<NodeMount[]> {
  const dirs = agentDirectories(clusterDir, node);
  await rm(dirs.run, { recursive: true, force: true });
  // The host user's alone: the configuration holds keys.
  await Promise.all([dirs.config, dirs.program, dirs.run].map(ensurePrivateDirectory));
  return [
    { hostPath: dirs.config, containerPath: CONFIG_DIR, readOnly: true },
    { hostPath: dirs.program, containerPath: AGENT_DIR },
    { hostPath: dirs.run, containerPath: NODE_RUN_DIR },
  ];
}

interface AgentFile {
  /** The path inside the node. */
  readonly path: string;
  readonly content: string | Uint8Array;
  readonly mode?: number;
}

/**
 * Writes the agent's files into the node's directories (see prepareAgentMounts), each whole
 * (written aside, then renamed); the start program last, so the entrypoint starts a complete agent.
 */
export async function installAgent(clusterDir: string, install: AgentInstall): Promise<void> {
  const dirs = agentDirectories(clusterDir, install.node.name);
  const files = await agentFiles(install);
  const hostPath = (path: string) =>
    path.startsWith(`${AGENT_DIR}/`)
      ? join(dirs.program, path.slice(AGENT_DIR.length + 1))
      : join(dirs.config, path.slice(CONFIG_DIR.length + 1));
  // Made here too: the install may come before the node's container (and its mounts) is created.
  await Promise.all([join(dirs.config, 'pki'), dirs.program].map(ensurePrivateDirectory));
  const start = files.pop()!;
  await Promise.all(
    files.map((file) =>
      writeFileAtomically(hostPath(file.path), file.content, file.mode ?? PUBLIC_FILE_MODE),
    ),
  );
  await writeFileAtomically(hostPath(start.path), start.content, start.mode ?? PUBLIC_FILE_MODE);
}

/** Everything the agent reads in the node, its start program last. */
async function agentFiles(install: AgentInstall): Promise<AgentFile[]> {
  const { node, ca, credentials } = install;
  const serving = await issueKubeletServingCertificate(ca, node);
  const config: AgentConfig = {
    nodeName: node.name,
    nodeIP: node.ip,
    server: install.server,
    caFile: `${PKI_DIR}/ca.crt`,
    certFile: `${PKI_DIR}/node.crt`,
    keyFile: `${PKI_DIR}/node.key`,
    networkCertFile: `${PKI_DIR}/network.crt`,
    networkKeyFile: `${PKI_DIR}/network.key`,
    dnsCertFile: `${PKI_DIR}/dns.crt`,
    dnsKeyFile: `${PKI_DIR}/dns.key`,
    proxyCertFile: `${PKI_DIR}/proxy.crt`,
    proxyKeyFile: `${PKI_DIR}/proxy.key`,
    servingCertFile: `${PKI_DIR}/kubelet.crt`,
    servingKeyFile: `${PKI_DIR}/kubelet.key`,
    // Role labels are not a kubelet's to set (NodeRestriction): `up` adds them as admin.
    labels: {},
    taints: [],
    podSubnet: install.podSubnet,
    podCIDR: node.podCIDR,
  };
  return [
    { path: `${PKI_DIR}/ca.crt`, content: ca.certificatePem },
    { path: `${PKI_DIR}/node.crt`, content: credentials.certificatePem },
    { path: `${PKI_DIR}/node.key`, content: credentials.privateKeyPem, mode: 0o600 },
    { path: `${PKI_DIR}/network.crt`, content: install.network.certificatePem },
    { path: `${PKI_DIR}/network.key`, content: install.network.privateKeyPem, mode: 0o600 },
    { path: `${PKI_DIR}/dns.crt`, content: install.dns.certificatePem },
    { path: `${PKI_DIR}/dns.key`, content: install.dns.privateKeyPem, mode: 0o600 },
    { path: `${PKI_DIR}/proxy.crt`, content: install.proxy.certificatePem },
    { path: `${PKI_DIR}/proxy.key`, content: install.proxy.privateKeyPem, mode: 0o600 },
    { path: `${PKI_DIR}/kubelet.crt`, content: serving.certificatePem },
    { path: `${PKI_DIR}/kubelet.key`, content: serving.privateKeyPem, mode: 0o600 },
    { path: CONFIG_PATH, content: `${JSON.stringify(config, null, 2)}\n` },
    { path: `${AGENT_DIR}/agent.cjs`, content: install.bundle.program },
    ...(install.bundle.codeCache
      ? [{ path: `${AGENT_DIR}/agent.cjs.cache`, content: install.bundle.codeCache }]
      : []),
    { path: `${AGENT_DIR}/agent.mjs`, content: install.bundle.entry },
    {
      path: `${AGENT_DIR}/start`,
      content: AGENT_START_PROGRAM,
      mode: 0o755,
    },
  ];
}

/** The kubelet's serving certificate (port 10250), for the node's name and IP, from the cluster CA. */
export function issueKubeletServingCertificate(
  ca: CertificateAuthority,
  node: Pick<PlannedNode, 'name' | 'ip'>,
): Promise<IssuedCertificate> {
  return issueServingCertificate(ca, {
    commonName: `${NODE_USER_PREFIX}${node.name}`,
    dnsNames: [node.name],
    ipAddresses: [node.ip],
  });
}

/** The client certificate of the agents' pod-network part (see controlplane/tkube-policy.ts). */
export function issuePodNetworkCertificate(ca: CertificateAuthority): Promise<IssuedCertificate> {
  return issueClientCertificate(ca, { user: POD_NETWORK_USER });
}

/** The client certificate of the agents' DNS part (see controlplane/tkube-policy.ts). */
export function issueClusterDnsCertificate(ca: CertificateAuthority): Promise<IssuedCertificate> {
  return issueClientCertificate(ca, { user: CLUSTER_DNS_USER });
}

/** The proxy's client certificate: upstream's bootstrap policy binds system:node-proxier to this user. */
export function issueKubeProxyCertificate(ca: CertificateAuthority): Promise<IssuedCertificate> {
  return issueClientCertificate(ca, { user: KUBE_PROXY });
}
