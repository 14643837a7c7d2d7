// The conditions the namespace controller reports on a Terminating namespace (Kubernetes'
// namespaceConditionUpdater): each deletion attempt sets all five, True with what went wrong or
// False with the "ok" reason and message, so a condition that recovered says so.
import type { NamespaceCondition, NamespaceStatus } from '../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../client/events/time.js';

export const DISCOVERY_FAILURE = 'NamespaceDeletionDiscoveryFailure';
export const GROUP_VERSION_PARSING_FAILURE = 'NamespaceDeletionGroupVersionParsingFailure';
export const CONTENT_FAILURE = 'NamespaceDeletionContentFailure';
export const CONTENT_REMAINING = 'NamespaceContentRemaining';
export const FINALIZERS_REMAINING = 'NamespaceFinalizersRemaining';

/** The controller's condition types, in the order it appends them. */
const CONDITION_TYPES = [
  DISCOVERY_FAILURE,
  GROUP_VERSION_PARSING_FAILURE,
  CONTENT_FAILURE,
  CONTENT_REMAINING,
  FINALIZERS_REMAINING,
] as const;

const OK: Readonly<Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }>> = {
  [DISCOVERY_FAILURE]: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  [GROUP_VERSION_PARSING_FAILURE]: {
    reason: 'ParsedGroupVersions',
    message: 'All legacy kube types successfully parsed',
  },
  [CONTENT_FAILURE]: {
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  [CONTENT_REMAINING]: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  [FINALIZERS_REMAINING]: { reason: 'ContentRemoved', message: 'All content successfully removed' },
};

/** What one pass over a namespace's content left behind. */
export interface ContentTotals {
  /** Objects left per resource, keyed `<resource>.<group>` (`pods.` for the core group). */
  readonly remainingByResource: ReadonlyMap<string, number>;
  /** Objects left per finalizer they carry. */
  readonly remainingByFinalizer: ReadonlyMap<string, number>;
}

/** Collects a deletion attempt's failures, then writes them into a namespace's status. */
export class NamespaceConditionUpdater {
  private readonly conditions: NamespaceCondition[] = [];
  private readonly contentErrors: string[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Listing the namespaced resources failed (discovery). */
  discoveryFailed(message: string): void {
    this.conditions.push(this.failed(DISCOVERY_FAILURE, 'DiscoveryFailed', message));
  }

  /** A listed group-version could not be parsed. */
  groupVersionParsingFailed(message: string): void {
    this.conditions.push(this.failed(GROUP_VERSION_PARSING_FAILURE, 'GroupVersionParsingFailed', message));
  }

  /** Deleting the objects of one resource failed. */
  contentDeletionFailed(message: string): void {
    this.contentErrors.push(message);
  }

  /** What remains: objects per resource, and objects per finalizer. */
  contentTotals(totals: ContentTotals): void {
    const resources = counted(totals.remainingByResource, (name, n) => `${name} has ${n} resource instances`);
    if (resources.length > 0) {
      this.conditions.push(
        this.failed(CONTENT_REMAINING, 'SomeResourcesRemain', `Some resources are remaining: ${resources}`),
      );
    }
    const finalizers = counted(
      totals.remainingByFinalizer,
      (finalizer, n) => `${finalizer} in ${n} resource instances`,
    );
    if (finalizers.length > 0) {
      this.conditions.push(
        this.failed(
          FINALIZERS_REMAINING,
          'SomeFinalizerRemain',
          `Some finalizers are remaining: ${finalizers}`,
        ),
      );
    }
  }

  /** Writes every condition into `status`; true when something changed. */
  update(status: NamespaceStatus): boolean {
    if (this.contentErrors.length > 0 && !this.conditions.some((c) => c.type === CONTENT_FAILURE)) {
      const messages = [...this.contentErrors].sort();
      this.conditions.push(
        this.failed(
          CONTENT_FAILURE,
          'ContentDeletionFailed',
          `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`,
        ),
      );
    }
    let changed = false;
    status.conditions ??= [];
    for (const type of CONDITION_TYPES) {
      const wanted = this.conditions.find((c) => c.type === type) ?? this.succeeded(type);
      const current = status.conditions.find((c) => c.type === type);
      if (current === undefined) {
        status.conditions.push(wanted);
        changed = true;
      } else if (
        current.status !== wanted.status ||
        current.reason !== wanted.reason ||
        current.message !== wanted.message
      ) {
        if (current.status !== wanted.status) current.lastTransitionTime = rfc3339(this.now());
        current.status = wanted.status;
        current.reason = wanted.reason;
        current.message = wanted.message;
        changed = true;
      }
    }
    return changed;
  }

  private failed(type: string, reason: string, message: string): NamespaceCondition {
    return { type, status: 'True', lastTransitionTime: rfc3339(this.now()), reason, message };
  }

  private succeeded(type: (typeof CONDITION_TYPES)[number]): NamespaceCondition {
    return { type, status: 'False', lastTransitionTime: rfc3339(this.now()), ...OK[type] };
  }
}

/** `describe(name, n)` of every non-zero count, sorted (for stable updates), comma-separated. */
function counted(counts: ReadonlyMap<string, number>, describe: (name: string, n: number) => string): string {
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([name, n]) => describe(name, n))
    .sort()
    .join(', ');
}
