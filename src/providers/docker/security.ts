// How much privilege a node container gets. `--privileged` is the natural choice, but Docker
// then asks for every capability, and where the host's bounding set lacks one (VMs without
// CAP_SYS_RESOURCE) the container cannot start: "unable to apply caps: operation not
// permitted". There, nodes get every capability the host can give and the rest of what
// privileged means as separate flags (see docs/node-image.md).
import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import type Dockerode from 'dockerode';
import { dockerEndpoint } from './docker-client.js';

export type NodeSecurity = { privileged: true } | { privileged: false; capDrop: string[] };

/** Linux capability names by number (linux/capability.h), as Docker spells them. */
const CAPABILITY_NAMES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'DAC_READ_SEARCH',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'SETPCAP',
  'LINUX_IMMUTABLE',
  'NET_BIND_SERVICE',
  'NET_BROADCAST',
  'NET_ADMIN',
  'NET_RAW',
  'IPC_LOCK',
  'IPC_OWNER',
  'SYS_MODULE',
  'SYS_RAWIO',
  'SYS_CHROOT',
  'SYS_PTRACE',
  'SYS_PACCT',
  'SYS_ADMIN',
  'SYS_BOOT',
  'SYS_NICE',
  'SYS_RESOURCE',
  'SYS_TIME',
  'SYS_TTY_CONFIG',
  'MKNOD',
  'LEASE',
  'AUDIT_WRITE',
  'AUDIT_CONTROL',
  'SETFCAP',
  'MAC_OVERRIDE',
  'MAC_ADMIN',
  'SYSLOG',
  'WAKE_ALARM',
  'BLOCK_SUSPEND',
  'AUDIT_READ',
  'PERFMON',
  'BPF',
  'CHECKPOINT_RESTORE',
] as const;

/**
 * The capabilities missing from a bounding set (`CapBnd:` of /proc/<pid>/status, hex), among
 * those the kernel knows (0..lastCap, /proc/sys/kernel/cap_last_cap).
 */
export function missingCapabilities(capBndHex: string, lastCap: number): string[] {
  const bounding = BigInt(`0x${capBndHex.trim()}`);
  const missing: string[] = [];
  for (let bit = 0; bit <= lastCap; bit++) {
    if ((bounding & (1n << BigInt(bit))) === 0n) missing.push(CAPABILITY_NAMES[bit] ?? `CAP_${bit}`);
  }
  return missing;
}

export function securityFromMissingCapabilities(missing: string[]): NodeSecurity {
  return missing.length === 0 ? { privileged: true } : { privileged: false, capDrop: missing };
}

/** Reads this process's bounding set; it stands for the engine's when both share a kernel. */
export async function hostMissingCapabilities(): Promise<string[]> {
  const status = await readFile('/proc/self/status', 'utf8');
  const capBnd = /^CapBnd:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  const lastCap = Number((await readFile('/proc/sys/kernel/cap_last_cap', 'utf8')).trim());
  if (capBnd === undefined || !Number.isInteger(lastCap)) return [];
  return missingCapabilities(capBnd, lastCap);
}

const detected = new Map<string, Promise<NodeSecurity>>();

/**
 * Detects once per engine and process. An engine on a unix socket running this machine's
 * kernel shares its capability bounding set (this process's); a remote engine (Docker
 * Desktop's VM, a TCP host) cannot be inspected that way and gets --privileged.
 */
export function detectNodeSecurity(docker: Dockerode): Promise<NodeSecurity> {
  const endpoint = dockerEndpoint(docker);
  let security = detected.get(endpoint);
  if (security === undefined) {
    security = detect(docker, endpoint);
    detected.set(endpoint, security);
    security.catch(() => detected.delete(endpoint));
  }
  return security;
}

async function detect(docker: Dockerode, endpoint: string): Promise<NodeSecurity> {
  const info = (await docker.info()) as { KernelVersion?: string };
  const local = endpoint.startsWith('unix://') && info.KernelVersion === release();
  if (!local) return { privileged: true };
  return securityFromMissingCapabilities(await hostMissingCapabilities());
}
