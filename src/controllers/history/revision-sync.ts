// The revision bookkeeping both DaemonSets and StatefulSets do on every sync (constructHistory /
// getStatefulSetRevisions and cleanupHistory / truncateHistory): find or create the revision of
// the current template (renumbering it when an older template comes back, as after an undo),
// and delete the oldest revisions no live pod uses beyond revisionHistoryLimit.

import type { LabelSelector } from '../../api/selectors/index.js';
import type { ControllerRevision } from '../../api/types/apps-v1.generated.js';
import type { PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import { isNotFound } from '../../client/rest/index.js';
import type { ApiObject, ResourceClient } from '../../client/types.js';
import { adoptionPatch, claimObjects, releasePatch } from '../controller-utils/controller-ref-manager.js';
import type { OwnerKind } from '../controller-utils/owner-references.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  createControllerRevision,
  findEqualRevisions,
  newControllerRevision,
  nextRevisionNumber,
  sortRevisions,
  templatePatch,
} from './controller-history.js';

export interface RevisionSyncInput {
  readonly client: ResourceClient<ControllerRevision>;
  readonly parent: ApiObject;
  readonly parentKind: OwnerKind;
  readonly template: PodTemplateSpec;
  /** The parent's status.collisionCount: unset (not hashed) for DaemonSets until a collision, as upstream. */
  readonly collisionCount: number | undefined;
  /** The revisions the parent controls now (from the informer cache). */
  readonly owned: readonly ControllerRevision[];
}

export interface RevisionSyncResult {
  /** The revision of the current template. */
  readonly current: ControllerRevision;
  /** Its `controller-revision-hash`, which new pods carry. */
  readonly hash: string;
  /** Every other owned revision, oldest first. */
  readonly old: ControllerRevision[];
  readonly collisionCount: number | undefined;
}

export async function syncRevisions(input: RevisionSyncInput): Promise<RevisionSyncResult> {
  const revisions = sortRevisions(input.owned);
  const next = nextRevisionNumber(revisions);
  const candidate = newControllerRevision(
    input.parent,
    input.parentKind,
    input.template.metadata?.labels ?? {},
    templatePatch(input.template),
    next,
    input.collisionCount,
  );
  const equal = findEqualRevisions(revisions, candidate);
  let current: ControllerRevision;
  let collisionCount = input.collisionCount;
  if (equal.length > 0) {
    current = equal[equal.length - 1]!;
    // An earlier template is current again: it becomes the newest revision.
    if (current.revision < next - 1) {
      current = await input.client.update({ ...current, revision: next });
    }
  } else {
    const created = await createControllerRevision(
      input.client,
      input.parent,
      input.parentKind,
      candidate,
      input.collisionCount,
    );
    current = created.revision;
    collisionCount = created.collisionCount;
  }
  const currentName = current.metadata?.name;
  return {
    current,
    hash: current.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '',
    old: revisions.filter((revision) => revision.metadata?.name !== currentName),
    collisionCount,
  };
}

/** Deletes the oldest of `old` not used by a live pod until at most `limit` unused remain. */
export async function cleanupHistory(
  client: ResourceClient<ControllerRevision>,
  old: readonly ControllerRevision[],
  liveHashes: ReadonlySet<string>,
  limit: number,
): Promise<void> {
  const unused = sortRevisions(old).filter(
    (revision) => !liveHashes.has(revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? ''),
  );
  const excess = unused.length - Math.max(0, limit);
  for (const revision of unused.slice(0, Math.max(0, excess))) {
    try {
      await client.delete(revision.metadata?.namespace ?? '', revision.metadata?.name ?? '');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/**
 * The revisions the parent controls after adopting orphans its selector matches and releasing
 * its revisions that stopped matching (ClaimControllerRevisions): a DaemonSet or StatefulSet
 * deleted with `--cascade=orphan` and created again takes its history back.
 */
export function claimRevisions(
  client: ResourceClient<ControllerRevision>,
  parent: ApiObject,
  parentKind: OwnerKind,
  selector: LabelSelector,
  inNamespace: readonly ControllerRevision[],
  canAdopt: () => Promise<void>,
): Promise<ControllerRevision[]> {
  const namespace = parent.metadata?.namespace ?? '';
  return claimObjects(inNamespace, {
    owner: parent,
    ownerKind: parentKind,
    objectKind: 'ControllerRevision',
    selector,
    canAdopt,
    adopt: async (revision) => {
      await client.patch(
        namespace,
        revision.metadata?.name ?? '',
        'strategic',
        adoptionPatch(parent, parentKind, revision.metadata?.uid ?? ''),
      );
    },
    release: async (revision) => {
      await client.patch(
        namespace,
        revision.metadata?.name ?? '',
        'strategic',
        releasePatch(revision.metadata?.uid ?? '', parent.metadata?.uid ?? ''),
      );
    },
  });
}
