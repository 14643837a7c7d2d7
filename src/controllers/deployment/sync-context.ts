// What the parts of a Deployment sync share: the clients and recorder of the deployment-controller
// identity, the ReplicaSet cache, the clock and the ways to look at a Deployment again later.
import type { Deployment, ReplicaSet } from '../../api/types/apps-v1.generated.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import type { ResourceClient } from '../../client/types.js';
import { metadataOf } from './deployment-util.js';

export interface SyncContext {
  readonly deployments: ResourceClient<Deployment>;
  readonly replicaSets: ResourceClient<ReplicaSet>;
  readonly replicaSetLister: Lister<ReplicaSet>;
  readonly recorder: EventRecorder;
  now(): number;
  /** Syncs the Deployment again after `ms` (progress deadline checks). */
  requeueAfter(deployment: Deployment, ms: number): void;
  /** Syncs the Deployment again soon, with the queue's per-key backoff. */
  requeueRateLimited(deployment: Deployment): void;
}

/** The kind owner references and events name a Deployment by. */
export const DEPLOYMENT_KIND = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

/**
 * Writes the Deployment's status (and what it carries in metadata, the revision annotation) and
 * takes the stored resourceVersion, so that later writes of the same sync do not conflict.
 */
export async function updateDeploymentStatus(ctx: SyncContext, deployment: Deployment): Promise<void> {
  const stored = await ctx.deployments.updateStatus(deployment);
  const meta = metadataOf(deployment);
  meta.resourceVersion = stored.metadata?.resourceVersion;
  // Kubernetes' Deployment status strategy keeps annotation changes; where a status write drops
  // them, write them through the main resource.
  const wanted = JSON.stringify(meta.annotations ?? {});
  if (JSON.stringify(stored.metadata?.annotations ?? {}) !== wanted) {
    const updated = await ctx.deployments.update({
      ...stored,
      metadata: { ...stored.metadata, annotations: meta.annotations },
    });
    meta.resourceVersion = updated.metadata?.resourceVersion;
  }
}
