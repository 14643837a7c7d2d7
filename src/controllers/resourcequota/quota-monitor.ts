// The quota controller's view of what quotas count (Kubernetes' QuotaMonitor): an informer per
// counted resource, whose caches the usage is computed from, and whose deletions (and changes of
// an object's usage, such as a pod finishing) call for the quotas of that namespace to be
// recalculated ("replenishment"). Resources only some quota counts get their informer when a
// quota first asks for them.
import type { KubeObject } from '../../api/object.js';
import { BUILTIN_RESOURCES } from '../../api/resources/builtin.js';
import { type GroupResource, usageOf } from '../../apiserver/admission/quota/index.js';
import { resourceListToJson } from '../../apiserver/admission/quota/resource-list.js';
import {
  objectOf,
  type SharedInformer,
  type SharedInformerFactory,
  waitForCacheSync,
} from '../../client/informers/index.js';
import type { ApiObject, ResourceRef } from '../../client/types.js';

/** Tells the controller that usage of `resource` in `namespace` may have dropped. */
export type Replenish = (resource: GroupResource, namespace: string) => void;

export class QuotaMonitor {
  private readonly monitors = new Map<string, SharedInformer<ApiObject>>();
  private signal: AbortSignal | undefined;

  /**
   * @param interested whether a namespace has quotas at all: changes elsewhere are not looked at.
   */
  constructor(
    private readonly informers: SharedInformerFactory,
    private readonly replenish: Replenish,
    private readonly interested: (namespace: string) => boolean,
  ) {}

  /** Monitors `resource` from the start (before the factory starts). */
  monitor(resource: GroupResource): SharedInformer<ApiObject> | undefined {
    const id = idOf(resource);
    const existing = this.monitors.get(id);
    if (existing) return existing;
    const ref = quotableResource(resource);
    if (!ref) return undefined;
    const informer = this.informers.informerFor<ApiObject>(ref);
    informer.addEventHandler({
      onUpdate: (old, current) => {
        const namespace = current.metadata?.namespace ?? '';
        if (this.interested(namespace) && usageChanged(resource, old, current))
          this.replenish(resource, namespace);
      },
      onDelete: (deleted) => {
        const namespace = objectOf(deleted).metadata?.namespace ?? '';
        if (this.interested(namespace)) this.replenish(resource, namespace);
      },
    });
    this.monitors.set(id, informer);
    // Asked for while running: start it now (the factory starts only informers not running yet).
    if (this.signal && !this.signal.aborted) this.informers.start(this.signal);
    return informer;
  }

  /** From now on, resources monitored late are started at once. */
  started(signal: AbortSignal): void {
    this.signal = signal;
  }

  /**
   * The objects of `resource` in `namespace`; none for a resource the apiserver does not serve.
   * Undefined when the controller stopped before a late informer synced.
   */
  async objects(resource: GroupResource, namespace: string): Promise<readonly KubeObject[] | undefined> {
    const informer = this.monitor(resource);
    if (!informer) return [];
    if (!(await waitForCacheSync(this.signal, [informer]))) return undefined;
    return informer.lister.list(namespace) as KubeObject[];
  }
}

function idOf(resource: GroupResource): string {
  return `${resource.resource}.${resource.group}`;
}

/** The served namespaced resource a quota can count (listable and watchable), in its preferred version. */
function quotableResource({ group, resource }: GroupResource): ResourceRef | undefined {
  const info = BUILTIN_RESOURCES.find((r) => r.group === group && r.resource === resource);
  if (!info?.namespaced || !info.verbs.includes('list') || !info.verbs.includes('watch')) return undefined;
  return { group, version: info.version, resource, kind: info.kind, namespaced: true };
}

function usageChanged(resource: GroupResource, old: ApiObject, current: ApiObject): boolean {
  const now = new Date();
  const before = resourceListToJson(usageOf(resource, old as KubeObject, now));
  const after = resourceListToJson(usageOf(resource, current as KubeObject, now));
  return JSON.stringify(before) !== JSON.stringify(after);
}
