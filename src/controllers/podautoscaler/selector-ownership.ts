// Which HPAs select which pods (horizontal.go's hpaSelectors BiMultimap, reduced to what it is
// used for): two HPAs whose targets' selectors select the same pod make both ambiguous. An HPA
// selects nothing until its first sync learns its target's selector.
import type { LabelSelector } from '../../api/selectors/index.js';
import type { Pod } from '../../api/types/core-v1.generated.js';

export class SelectorOwnership {
  /** `namespace/name` of each known HPA → its target's selector (undefined: not learnt yet). */
  private readonly selectors = new Map<string, LabelSelector | undefined>();

  register(key: string): void {
    if (!this.selectors.has(key)) this.selectors.set(key, undefined);
  }

  /** Updates a registered HPA's selector (an HPA deleted meanwhile stays forgotten). */
  update(key: string, selector: LabelSelector): void {
    if (this.selectors.has(key)) this.selectors.set(key, selector);
  }

  forget(key: string): void {
    this.selectors.delete(key);
  }

  /** The HPAs of the pods' namespaces whose selectors select any of the pods, sorted. */
  ownersOf(pods: readonly Pod[]): string[] {
    const owners = new Set<string>();
    for (const pod of pods) {
      const namespace = pod.metadata?.namespace ?? '';
      const labels = pod.metadata?.labels ?? {};
      for (const [key, selector] of this.selectors) {
        if (selector === undefined || !key.startsWith(`${namespace}/`)) continue;
        if (selector.matches(labels)) owners.add(key);
      }
    }
    return [...owners].sort();
  }
}
