import { compareGoStrings } from './go-text.js';
import { LabelRequirement, type Labels, newLabelRequirement } from './label-requirement.js';

function sortedByKey(requirements: readonly LabelRequirement[]): readonly LabelRequirement[] {
  // Kubernetes sorts requirements by key so the canonical text is deterministic; a stable sort
  // keeps requirements on the same key in the order given.
  return [...requirements].sort((a, b) => compareGoStrings(a.key, b.key));
}

/**
 * A label selector: the AND of its requirements. The empty selector matches everything; the
 * "nothing" selector (from a null metav1.LabelSelector) matches no object at all.
 */
export class LabelSelector {
  private static readonly EVERYTHING = new LabelSelector([], false);
  private static readonly NOTHING = new LabelSelector([], true);

  /** Requirements sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  /** True for the selector that selects nothing (Kubernetes' `labels.Nothing()`). */
  readonly selectsNothing: boolean;

  private constructor(requirements: readonly LabelRequirement[], selectsNothing: boolean) {
    this.requirements = requirements;
    this.selectsNothing = selectsNothing;
  }

  static everything(): LabelSelector {
    return LabelSelector.EVERYTHING;
  }

  static nothing(): LabelSelector {
    return LabelSelector.NOTHING;
  }

  /** A selector of already validated requirements, sorted by key. */
  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    return requirements.length === 0
      ? LabelSelector.EVERYTHING
      : new LabelSelector(sortedByKey(requirements), false);
  }

  matches(labels: Labels): boolean {
    if (this.selectsNothing) return false;
    return this.requirements.every((requirement) => requirement.matches(labels));
  }

  /** True when the selector does not restrict anything (the nothing selector is not empty). */
  isEmpty(): boolean {
    return !this.selectsNothing && this.requirements.length === 0;
  }

  /** A new selector with more requirements (the nothing selector stays nothing). */
  add(...requirements: LabelRequirement[]): LabelSelector {
    if (this.selectsNothing) return this;
    return LabelSelector.of([...this.requirements, ...requirements]);
  }

  /**
   * The value the selector pins `key` to (`key=v`, `key==v` or `key in (v)`), if it does. As in
   * Kubernetes, only the first requirement on the key is consulted.
   */
  requiresExactMatch(key: string): string | undefined {
    const requirement = this.requirements.find((candidate) => candidate.key === key);
    if (requirement === undefined || requirement.values.length !== 1) return undefined;
    const pins =
      requirement.operator === '=' || requirement.operator === '==' || requirement.operator === 'in';
    return pins ? requirement.values[0] : undefined;
  }

  /** Canonical text: requirements sorted by key, joined by commas; `''` for everything and nothing. */
  toString(): string {
    return this.requirements.map((requirement) => requirement.toString()).join(',');
  }
}

/** A selector matching exactly the given labels, without validating them (`labels.SelectorFromSet`). */
export function labelSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined | null,
): LabelSelector {
  if (set === undefined || set === null) return LabelSelector.everything();
  return LabelSelector.of(Object.entries(set).map(([key, value]) => new LabelRequirement(key, '=', [value])));
}

/** Like {@link labelSelectorFromSet} but validates keys and values (`labels.ValidatedSelectorFromSet`). */
export function validatedLabelSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined | null,
): LabelSelector {
  if (set === undefined || set === null) return LabelSelector.everything();
  return LabelSelector.of(Object.entries(set).map(([key, value]) => newLabelRequirement(key, '=', [value])));
}
