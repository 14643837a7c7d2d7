// Per topology domain, the nodes in it and the pods matching a selector there, kept current
// across cycles (see cache/aggregates). Valid for constraints whose inclusion policies count every
// node that has the topology labels: nodeTaintsPolicy Ignore, and nodeAffinityPolicy Ignore or a
// pod without node affinity.

import type { RequiredNodeAffinity } from '../../../api/scheduling/node-selector.js';
import type { LabelSelector } from '../../../api/selectors/index.js';
import type { Aggregate, SnapshotChange } from '../../cache/aggregates.js';
import { selectorKey } from '../../cache/memo-keys.js';
import type { Snapshot } from '../../cache/snapshot.js';
import type { SpreadConstraint } from './constraints.js';

interface Domain {
  nodes: number;
  matching: number;
}

export class SpreadDomainIndex implements Aggregate {
  readonly domains = new Map<string, Domain>();

  constructor(
    private readonly namespace: string,
    private readonly selector: LabelSelector,
    private readonly topologyKey: string,
    /** Only nodes with all these labels count. */
    private readonly requiredKeys: readonly string[],
  ) {}

  apply(change: SnapshotChange): void {
    const labels = change.labels;
    for (const key of this.requiredKeys) if (!Object.hasOwn(labels, key)) return;
    const value = labels[this.topologyKey] ?? '';
    let domain = this.domains.get(value);
    if (change.kind === 'node') {
      if (domain === undefined) {
        domain = { nodes: 0, matching: 0 };
        this.domains.set(value, domain);
      }
      domain.nodes += change.delta;
    } else {
      const podInfo = change.podInfo;
      if (podInfo.namespace !== this.namespace || podInfo.isTerminating()) return;
      if (this.selector.isEmpty() || !this.selector.matches(podInfo.labels)) return;
      if (domain === undefined) {
        domain = { nodes: 0, matching: 0 };
        this.domains.set(value, domain);
      }
      domain.matching += change.delta;
    }
    if (domain.nodes === 0 && domain.matching === 0) this.domains.delete(value);
  }
}

/** Whether every node with the topology labels counts for the constraint, whatever the pod. */
export function countsEveryLabelledNode(
  constraint: SpreadConstraint,
  required: RequiredNodeAffinity,
): boolean {
  return (
    constraint.nodeTaintsPolicy === 'Ignore' &&
    (constraint.nodeAffinityPolicy === 'Ignore' || required.isEmpty)
  );
}

/** The constraint's domain tally for pods in `namespace`, over nodes having all `requiredKeys`. */
export function spreadDomains(
  snapshot: Snapshot,
  constraint: SpreadConstraint,
  namespace: string,
  requiredKeys: readonly string[],
): ReadonlyMap<string, Domain> {
  const keys = [...requiredKeys].sort();
  const key = `spread-domains:${namespace}:${selectorKey(constraint.selector)}:${constraint.topologyKey}:${keys.join(',')}`;
  return snapshot.aggregate(
    key,
    () => new SpreadDomainIndex(namespace, constraint.selector, constraint.topologyKey, keys),
  ).domains;
}
