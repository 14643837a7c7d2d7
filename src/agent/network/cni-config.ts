// The node's CNI configuration: a bridge with host-local addresses from the node's pod CIDR, and
// portmap for hostPort. Source addresses are kept pod to pod (no ipMasq); traffic leaving the pod
// network is masqueraded by one rule instead (masquerade.ts).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const CNI_CONFIG_PATH = '/etc/cni/net.d/10-tkube.conflist';
export const BRIDGE_NAME = 'tkube0';

export function cniConfigList(podCIDR: string): object {
  return {
    cniVersion: '0.4.0',
    name: 'tkube',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE_NAME,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        // On /run (a tmpfs): addresses are released when the node restarts, as its pods are.
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: podCIDR }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: '/run/cni/ipam',
        },
      },
      { type: 'portmap', capabilities: { portMappings: true }, snat: true },
    ],
  };
}

/** Writes the conflist if it differs (atomically: containerd watches the directory). */
export async function writeCniConfig(podCIDR: string, path = CNI_CONFIG_PATH): Promise<boolean> {
  const text = `${JSON.stringify(cniConfigList(podCIDR), null, 2)}\n`;
  const current = await readFile(path, 'utf8').catch(() => undefined);
  if (current === text) return false;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, text, { mode: 0o644 });
  await rename(`${path}.tmp`, path);
  return true;
}
