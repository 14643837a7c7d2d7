// Empties a namespace being deleted and releases it (Kubernetes' namespacedResourcesDeleter):
// marks it Terminating, deletes every namespaced resource's objects in it (a delete-collection per
// resource, then a list to see what is left), reports what remains in its conditions, and once
// nothing is left removes its finalizer token from spec.finalizers through `namespaces/finalize`,
// upon which the apiserver deletes a namespace with no finalizers left.
import type { Namespace, Pod } from '../../api/types/core-v1.generated.js';
import { apiErrorCode } from '../../client/informers/index.js';
import { NAMESPACES, PODS } from '../../client/resources.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import type { ApiObject, Client, ResourceClient } from '../../client/types.js';
import type { DeletableResource } from './deletable-resources.js';
import { NamespaceConditionUpdater } from './deletion-conditions.js';

/** The finalizer the namespace controller owns. */
export const KUBERNETES_FINALIZER = 'kubernetes';

/** How long to expect objects held by finalizers to take, when nothing better is known. */
const FINALIZER_ESTIMATE_SECONDS = 15;

/** Content is still going away; try again in about `estimateSeconds`. */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
    this.name = 'ResourcesRemainingError';
  }
}

/** What deleting one resource's objects left behind. */
interface ResourceOutcome {
  readonly estimateSeconds: number;
  readonly remaining: number;
  readonly finalizers: ReadonlyMap<string, number>;
  readonly error?: string;
}

export interface NamespacedResourcesDeleterOptions {
  readonly client: Client;
  /** The resources to empty, looked up on every pass (the set may grow). */
  readonly resources: () => readonly DeletableResource[];
  readonly finalizerToken?: string;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

export class NamespacedResourcesDeleter {
  private readonly client: Client;
  private readonly namespaces: ResourceClient<Namespace>;
  private readonly finalizerToken: string;
  private readonly now: () => number;
  private readonly log: (message: string) => void;
  /** Operations the server answered 404/405 for: not tried again (Kubernetes' opCache). */
  private readonly unsupported = new Set<string>();

  constructor(private readonly options: NamespacedResourcesDeleterOptions) {
    this.client = options.client;
    this.namespaces = options.client.resource<Namespace>(NAMESPACES);
    this.finalizerToken = options.finalizerToken ?? KUBERNETES_FINALIZER;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((message) => console.error(message));
  }

  /**
   * One deletion pass over the namespace `name`. Resolves when the namespace is gone, not being
   * deleted, or finalized by this controller; throws ResourcesRemainingError while content waits
   * on finalizers or graceful termination, and any other error to be retried.
   */
  async delete(name: string): Promise<void> {
    let namespace: Namespace;
    try {
      namespace = await this.namespaces.get('', name);
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (!namespace.metadata?.deletionTimestamp) return;
    try {
      namespace = await this.retryOnConflict(namespace, (current) => this.markTerminating(current));
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (!namespace.metadata?.deletionTimestamp) return;
    if ((namespace.spec?.finalizers ?? []).length === 0) return;

    const estimate = await this.deleteAllContent(namespace);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);

    try {
      await this.retryOnConflict(namespace, (current) => this.finalize(current));
    } catch (error) {
      // Another controller sharing the token may have finished the deletion.
      if (!isNotFound(error)) throw error;
    }
  }

  private async markTerminating(namespace: Namespace): Promise<Namespace> {
    if (!namespace.metadata?.deletionTimestamp || namespace.status?.phase === 'Terminating') return namespace;
    const terminating = structuredClone(namespace);
    terminating.status = { ...terminating.status, phase: 'Terminating' };
    return this.namespaces.updateStatus(terminating);
  }

  /** Removes this controller's token from spec.finalizers (the rest, deduplicated and sorted). */
  private finalize(namespace: Namespace): Promise<Namespace> {
    const rest = new Set((namespace.spec?.finalizers ?? []).filter((f) => f !== this.finalizerToken));
    const finalized: Namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: namespace.metadata,
      spec: { ...namespace.spec, finalizers: [...rest].sort() },
    };
    return this.namespaces.update(finalized, { subresource: 'finalize' });
  }

  /** Runs `write` on the latest namespace until it does not conflict; the UID must not change. */
  private async retryOnConflict(
    namespace: Namespace,
    write: (current: Namespace) => Promise<Namespace>,
  ): Promise<Namespace> {
    let current = namespace;
    for (;;) {
      try {
        return await write(current);
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
      const latest = await this.namespaces.get('', current.metadata?.name ?? '');
      if (latest.metadata?.uid !== current.metadata?.uid)
        throw new Error('namespace uid has changed across retries');
      current = latest;
    }
  }

  /**
   * Deletes the objects of every resource in the namespace and records what remains in its
   * conditions. Returns the estimated seconds until what remains is gone (0 when nothing does).
   */
  private async deleteAllContent(namespace: Namespace): Promise<number> {
    const name = namespace.metadata?.name ?? '';
    const deletedAt = Date.parse(namespace.metadata?.deletionTimestamp ?? '');
    const conditions = new NamespaceConditionUpdater(this.now);
    const resources = this.options.resources();
    const outcomes = await Promise.all(
      resources.map((resource) => this.deleteResourceContent(resource, name, deletedAt)),
    );
    let estimate = 0;
    const errors: string[] = [];
    const remainingByResource = new Map<string, number>();
    const remainingByFinalizer = new Map<string, number>();
    outcomes.forEach((outcome, i) => {
      const { ref } = resources[i]!;
      if (outcome.error !== undefined) {
        errors.push(outcome.error);
        conditions.contentDeletionFailed(outcome.error);
      }
      estimate = Math.max(estimate, outcome.estimateSeconds);
      if (outcome.remaining === 0) return;
      remainingByResource.set(`${ref.resource}.${ref.group}`, outcome.remaining);
      for (const [finalizer, count] of outcome.finalizers) {
        remainingByFinalizer.set(finalizer, (remainingByFinalizer.get(finalizer) ?? 0) + count);
      }
    });
    conditions.contentTotals({ remainingByResource, remainingByFinalizer });

    // Always written when changed, so conditions that recovered say so.
    const updated = structuredClone(namespace);
    updated.status ??= {};
    if (conditions.update(updated.status)) {
      try {
        await this.namespaces.updateStatus(updated);
      } catch (error) {
        this.log(`namespace: couldn't update status condition for namespace "${name}": ${messageOf(error)}`);
      }
    }
    if (errors.length > 0) throw new Error(errors.join(', '));
    return estimate;
  }

  /** Deletes one resource's objects in the namespace and counts what is left. */
  private async deleteResourceContent(
    resource: DeletableResource,
    namespace: string,
    deletedAt: number,
  ): Promise<ResourceOutcome> {
    const client = this.client.resource<ApiObject>(resource.ref);
    let estimate = 0;
    try {
      estimate = await this.estimateGracefulTermination(resource, namespace, deletedAt);
      if (!(await this.deleteCollection(resource, client, namespace))) {
        await this.deleteEachItem(resource, client, namespace);
      }
      const items = await this.listItems(resource, client, namespace);
      if (items === undefined || items.length === 0) return nothingLeft(estimate, items);
      const finalizers = new Map<string, number>();
      for (const item of items) {
        for (const finalizer of item.metadata?.finalizers ?? []) {
          finalizers.set(finalizer, (finalizers.get(finalizer) ?? 0) + 1);
        }
      }
      if (estimate > 0) return { estimateSeconds: estimate, remaining: items.length, finalizers };
      // Objects held by finalizers are normal: give their owners time.
      if (finalizers.size > 0) {
        return { estimateSeconds: FINALIZER_ESTIMATE_SECONDS, remaining: items.length, finalizers };
      }
      const { group, version, resource: plural } = resource.ref;
      return {
        estimateSeconds: estimate,
        remaining: items.length,
        finalizers,
        error: `unexpected items still remain in namespace: ${namespace} for gvr: {${group} ${version} ${plural}}`,
      };
    } catch (error) {
      return { estimateSeconds: estimate, remaining: 0, finalizers: new Map(), error: messageOf(error) };
    }
  }

  /** Seconds pods may still take to terminate gracefully, counted from the namespace's deletion. */
  private async estimateGracefulTermination(
    resource: DeletableResource,
    namespace: string,
    deletedAt: number,
  ): Promise<number> {
    if (resource.ref.group !== '' || resource.ref.resource !== 'pods') return 0;
    const pods = await this.client.resource<Pod>(PODS).list(namespace);
    let estimate = 0;
    for (const pod of pods.items) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      estimate = Math.max(estimate, pod.spec?.terminationGracePeriodSeconds ?? 0);
    }
    const elapsedSeconds = (this.now() - deletedAt) / 1000;
    return Number.isNaN(elapsedSeconds) || elapsedSeconds >= estimate ? 0 : estimate;
  }

  /** False when the server does not serve deletecollection for the resource. */
  private async deleteCollection(
    resource: DeletableResource,
    client: ResourceClient<ApiObject>,
    namespace: string,
  ): Promise<boolean> {
    const key = `deletecollection ${resource.ref.group}/${resource.ref.resource}`;
    if (!resource.deleteCollection || this.unsupported.has(key)) return false;
    try {
      // Background: the garbage collector must not orphan dependents (the controller deletes
      // everything generically and waits for it all to go).
      await client.deleteCollection(namespace, { propagationPolicy: 'Background' });
      return true;
    } catch (error) {
      if (!isUnsupported(error)) throw error;
      this.unsupported.add(key);
      return false;
    }
  }

  private async deleteEachItem(
    resource: DeletableResource,
    client: ResourceClient<ApiObject>,
    namespace: string,
  ): Promise<void> {
    const items = await this.listItems(resource, client, namespace);
    for (const item of items ?? []) {
      try {
        await client.delete(namespace, item.metadata?.name ?? '', { propagationPolicy: 'Background' });
      } catch (error) {
        if (!isUnsupported(error)) throw error;
      }
    }
  }

  /** The objects of the resource left in the namespace, or undefined when it cannot be listed. */
  private async listItems(
    resource: DeletableResource,
    client: ResourceClient<ApiObject>,
    namespace: string,
  ): Promise<ApiObject[] | undefined> {
    const key = `list ${resource.ref.group}/${resource.ref.resource}`;
    if (!resource.list || this.unsupported.has(key)) return undefined;
    try {
      return (await client.list(namespace)).items;
    } catch (error) {
      if (!isUnsupported(error)) throw error;
      this.unsupported.add(key);
      return undefined;
    }
  }
}

function nothingLeft(estimateSeconds: number, items: ApiObject[] | undefined): ResourceOutcome {
  // A resource that cannot be listed keeps its estimate: nothing says it is gone.
  return { estimateSeconds: items === undefined ? estimateSeconds : 0, remaining: 0, finalizers: new Map() };
}

/** MethodNotSupported or NotFound: the server does not serve the operation for this resource. */
function isUnsupported(error: unknown): boolean {
  const code = apiErrorCode(error);
  return code === 405 || code === 404;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
