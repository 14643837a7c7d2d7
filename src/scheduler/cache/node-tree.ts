// Node names grouped by zone (the scheduler's nodeTree). Listing interleaves zones — one node from
// each zone in turn — so that when only a sample of nodes is examined, it spans the zones.
import { LABEL_TOPOLOGY_ZONE } from '../../api/topology.js';
import type { Node } from '../../api/types/core-v1.generated.js';

const REGION_LABEL = 'topology.kubernetes.io/region';
const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
const LEGACY_REGION_LABEL = 'failure-domain.beta.kubernetes.io/region';

/** utilnode.GetZoneKey: region and zone joined, '' for a node with neither label. */
export function zoneKeyOf(node: Node): string {
  const labels = node.metadata?.labels;
  if (labels === undefined) return '';
  const zone = labels[LABEL_TOPOLOGY_ZONE] ?? labels[LEGACY_ZONE_LABEL] ?? '';
  const region = labels[REGION_LABEL] ?? labels[LEGACY_REGION_LABEL] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\x00:${zone}`;
}

export class NodeTree {
  private readonly zones = new Map<string, string[]>();
  private count = 0;

  get numNodes(): number {
    return this.count;
  }

  add(node: Node): void {
    const zone = zoneKeyOf(node);
    const name = node.metadata?.name ?? '';
    let names = this.zones.get(zone);
    if (names === undefined) {
      names = [];
      this.zones.set(zone, names);
    }
    if (names.includes(name)) return;
    names.push(name);
    this.count++;
  }

  remove(node: Node): void {
    const zone = zoneKeyOf(node);
    const names = this.zones.get(zone);
    if (names === undefined) return;
    const index = names.indexOf(node.metadata?.name ?? '');
    if (index < 0) return;
    names.splice(index, 1);
    this.count--;
    if (names.length === 0) this.zones.delete(zone);
  }

  update(oldNode: Node | undefined, newNode: Node): void {
    if (oldNode !== undefined) {
      if (zoneKeyOf(oldNode) === zoneKeyOf(newNode)) return;
      this.remove(oldNode);
    }
    this.add(newNode);
  }

  /** All names, zones interleaved. */
  list(): string[] {
    const result: string[] = [];
    const zones = [...this.zones.values()];
    for (let index = 0; result.length < this.count; index++) {
      for (const names of zones) if (index < names.length) result.push(names[index]!);
    }
    return result;
  }
}
