// The namespace controller: finishes the deletion of every namespace marked for deletion by
// emptying it and releasing its `kubernetes` finalizer (see namespaced-resources-deleter.ts).
import type { Namespace } from '../../api/types/core-v1.generated.js';
import { Controller, type SyncResult } from '../../client/controller.js';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES } from '../../client/resources.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  RateLimitingQueue,
} from '../../client/workqueue/index.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import {
  type DeletableResource,
  deletableCustomResources,
  deletableNamespacedResources,
} from './deletable-resources.js';
import { NamespacedResourcesDeleter, ResourcesRemainingError } from './namespaced-resources-deleter.js';

const SERVICE_ACCOUNT = 'namespace-controller';
/** `--concurrent-namespace-syncs`' default. */
const WORKERS = 10;
/**
 * Kubernetes waits `estimate/2 + 1` seconds before looking at remaining content again (8 s for
 * objects held by finalizers). A local cluster looks sooner, so a namespace goes soon after its
 * last finalizer does.
 */
const MAX_CONTENT_RECHECK_MS = 2_000;

/**
 * Retries at least every minute (the namespace controller's own limiter: per-item backoff from
 * 5 ms to 60 s, and 10 qps overall).
 */
function namespaceRateLimiter() {
  return new MaxOfRateLimiter<string>(
    new ItemExponentialFailureRateLimiter<string>(5, 60_000),
    new BucketRateLimiter<string>(10, 100),
  );
}

export class NamespaceController {
  readonly controller: Controller;
  private readonly deleter: NamespacedResourcesDeleter;

  constructor(context: ControllerContext, resources?: () => readonly DeletableResource[]) {
    // Built-ins, plus the custom resources of the CRDs established at each pass (upstream
    // rediscovers the server's resources on every sync).
    if (!resources) {
      const builtins = memoized(deletableNamespacedResources);
      const crds = context.informers.listerFor(CUSTOM_RESOURCE_DEFINITIONS);
      resources = () => [...builtins(), ...deletableCustomResources(crds.list())];
    }
    this.deleter = new NamespacedResourcesDeleter({ client: context.clientFor(SERVICE_ACCOUNT), resources });
    this.controller = new Controller({
      name: 'namespace',
      sync: (key) => this.sync(key),
      workers: WORKERS,
      // A namespace is never given up on.
      maxRetries: Number.POSITIVE_INFINITY,
      queue: new RateLimitingQueue<string>(namespaceRateLimiter()),
    });
    // Kubernetes delays each event 5 s so that HA apiservers and etcd members catch up with the
    // deletion; one apiserver on one store refuses new content at once, and the list after each
    // delete-collection catches any late arrival.
    this.controller.watch(context.informers.informerFor<Namespace>(NAMESPACES), (namespace) =>
      namespace.metadata?.deletionTimestamp ? (namespace.metadata.name ?? '') : undefined,
    );
  }

  async sync(name: string): Promise<SyncResult | undefined> {
    try {
      await this.deleter.delete(name);
      return undefined;
    } catch (error) {
      if (!(error instanceof ResourcesRemainingError)) throw error;
      const waitMs = (Math.floor(error.estimateSeconds / 2) + 1) * 1000;
      return { requeueAfterMs: Math.min(waitMs, MAX_CONTENT_RECHECK_MS) };
    }
  }
}

function memoized<T>(compute: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= compute();
    return value;
  };
}

export const namespaceController: ControllerDescriptor = {
  name: 'namespace-controller',
  create: (context) => new NamespaceController(context).controller,
};
