// Pods reach the host (and the control plane) only if traffic leaving the pod network is
// masqueraded; pod-to-pod traffic keeps its source address.
import type { RunCommand } from './host-commands.js';

const COMMENT = 'tkube: masquerade traffic leaving the pod network';

/** Adds the rule unless present (`-C` checks first, so restarts never duplicate it). */
export async function ensurePodMasquerade(run: RunCommand, clusterPodSubnet: string): Promise<void> {
  const rule = [
    'POSTROUTING',
    '-s',
    clusterPodSubnet,
    '!',
    '-d',
    clusterPodSubnet,
    '-m',
    'comment',
    '--comment',
    COMMENT,
    '-j',
    'MASQUERADE',
  ];
  try {
    await run('iptables', ['-t', 'nat', '-C', ...rule]);
  } catch {
    await run('iptables', ['-t', 'nat', '-A', ...rule]);
  }
}
