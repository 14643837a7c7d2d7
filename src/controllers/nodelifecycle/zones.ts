// Zones as the node lifecycle controller sees them: a node's zone key (region and zone labels),
// and a zone's state from its nodes' Ready conditions, which sets how fast its nodes are tainted.
import type { Node, NodeCondition } from '../../api/types/core-v1.generated.js';

export type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

/** `<region>:\0:<zone>` from the topology labels (or their deprecated beta forms); '' without either. */
export function zoneKeyOf(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region =
    labels['topology.kubernetes.io/region'] || labels['failure-domain.beta.kubernetes.io/region'] || '';
  const zone =
    labels['topology.kubernetes.io/zone'] || labels['failure-domain.beta.kubernetes.io/zone'] || '';
  return region === '' && zone === '' ? '' : `${region}:\x00:${zone}`;
}

/** Nodes with this label are left out of the zone's health. */
export const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';

/**
 * A zone with no Ready node is fully disrupted; one where more than two nodes and at least
 * `unhealthyThreshold` of them are not Ready is partially disrupted; otherwise it is normal.
 */
export function computeZoneState(
  readyConditions: readonly (NodeCondition | undefined)[],
  unhealthyThreshold: number,
): { notReady: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const condition of readyConditions) {
    if (condition?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyThreshold) {
    return { notReady, state: 'PartialDisruption' };
  }
  return { notReady, state: 'Normal' };
}
