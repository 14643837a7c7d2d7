// The controllers apiextensions-apiserver runs inside the API server process — naming,
// establishing, API approval and the finalizer — fed by a watch on the stored CRDs. Serving follows
// each stored change at once, in the same turn the store announces it, so a client that sees
// Established can use the resource immediately.
import type { KubeObject } from '../../api/object.js';
import type { Store, WatchEvent } from '../../storage/index.js';
import { StoreFollower } from '../auth/store-follower.js';
import { timestamp } from '../registry/object-meta.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { StatusError } from '../status.js';
import { apiApprovalState, isProtectedCommunityGroup } from './api-approval.js';
import { setCrdCondition } from './conditions.js';
import { CLEANUP_FINALIZER, type CrdCondition, conditionTrue, crdSpec } from './crd-object.js';
import { deleteInstances } from './finalizer.js';
import { acceptedNamesJson, calculateNames } from './naming-controller.js';
import type { CustomResourceRegistry } from './registry.js';

const API_APPROVAL_CONDITION = 'KubernetesAPIApprovalPolicyConformant';

/** The apiapproval controller's condition, or undefined for groups that need no approval. */
function approvalCondition(crd: KubeObject): CrdCondition | undefined {
  if (!isProtectedCommunityGroup(crdSpec(crd).group)) return undefined;
  const { state, reason } = apiApprovalState(crd.metadata?.annotations);
  const outcome = {
    Invalid: ['False', 'InvalidAnnotation'],
    Missing: ['False', 'MissingAnnotation'],
    Approved: ['True', 'ApprovedAnnotation'],
    Bypassed: ['False', 'UnapprovedAnnotation'],
  }[state];
  return { type: API_APPROVAL_CONDITION, status: outcome[0]!, reason: outcome[1]!, message: reason };
}

export class CrdControllers {
  private readonly follower: StoreFollower;
  private readonly queue = new Set<string>();
  private readonly finalizing = new Set<string>();
  private running = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly crds: ResourceStore,
    private readonly registry: CustomResourceRegistry,
  ) {
    this.follower = new StoreFollower(store, crds.root, {
      apply: (events) => this.apply(events),
      relist: () => this.load(),
    });
  }

  async start(): Promise<void> {
    this.follower.start(await this.load());
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
  }

  private nameOf(key: string): string {
    return key.slice(this.crds.root.length);
  }

  private async load(): Promise<number> {
    const page = await this.store.list(this.crds.root);
    for (const kv of page.items) {
      const name = this.nameOf(kv.key);
      this.registry.update(name, JSON.parse(kv.value) as KubeObject);
      this.enqueue(name);
    }
    return page.revision;
  }

  private apply(events: readonly WatchEvent[]): void {
    for (const event of events) {
      const name = this.nameOf(event.key);
      const crd = event.value === undefined ? undefined : (JSON.parse(event.value) as KubeObject);
      this.registry.update(name, crd);
      this.enqueue(name);
      // A CRD that goes or changes names may free names another CRD of its group waits for.
      const previous =
        event.prevValue === undefined ? undefined : (JSON.parse(event.prevValue) as KubeObject);
      if (!crd || (previous && JSON.stringify(previous.status) !== JSON.stringify(crd.status))) {
        void this.enqueueGroup(crdSpec(crd ?? previous ?? {}).group, name);
      }
    }
  }

  private async enqueueGroup(group: string, except: string): Promise<void> {
    const { items } = await this.crds.list('');
    for (const text of items) {
      const other = JSON.parse(text) as KubeObject;
      const name = other.metadata?.name ?? '';
      if (name !== except && crdSpec(other).group === group && !conditionTrue(other, 'NamesAccepted'))
        this.enqueue(name);
    }
  }

  private enqueue(name: string): void {
    this.queue.add(name);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size > 0 && !this.stopped) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          await this.sync(name);
        } catch (error) {
          if (this.stopped) return;
          // Conflicts and races with deletion: the next event brings the CRD back here.
          if (!(error instanceof StatusError && (error.code === 409 || error.code === 404)))
            console.error(`apiextensions: syncing CustomResourceDefinition ${name}:`, error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async sync(name: string): Promise<void> {
    const crd = await this.crds.find('', name);
    if (!crd) return;
    if (crd.metadata?.deletionTimestamp !== undefined) {
      if ((crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER) && !this.finalizing.has(name)) {
        this.finalizing.add(name);
        void this.finalize(name).finally(() => this.finalizing.delete(name));
      }
      return;
    }
    const { items } = await this.crds.list('');
    const all = items.map((text) => JSON.parse(text) as KubeObject);
    await this.crds.guaranteedUpdate(
      '',
      name,
      (current) => {
        const now = timestamp();
        current.status ??= {};
        const status = current.status as Record<string, unknown>;
        const naming = calculateNames(current, all);
        status.acceptedNames = acceptedNamesJson(naming.acceptedNames);
        setCrdCondition(current, naming.namesAccepted, now);
        setCrdCondition(current, naming.established, now);
        const approval = approvalCondition(current);
        if (approval) setCrdCondition(current, approval, now);
        return current;
      },
      { subresource: 'status' },
    );
  }

  /** CRDFinalizer.sync. */
  private async finalize(name: string): Promise<void> {
    const setTerminating = (condition: CrdCondition) =>
      this.crds.guaranteedUpdate(
        '',
        name,
        (current) => {
          setCrdCondition(current, condition, timestamp());
          return current;
        },
        { subresource: 'status' },
      );
    const crd = await setTerminating({
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
    });
    if (conditionTrue(crd, 'Established')) {
      const instances = this.registry.storageStore(crd);
      const { condition, done } = instances
        ? await deleteInstances(instances)
        : { condition: undefined, done: true };
      if (condition) await setTerminating(condition);
      if (!done) {
        // Retried as upstream's queue retries a failed sync.
        setTimeout(() => this.enqueue(name), 1000).unref();
        return;
      }
    } else {
      await setTerminating({
        type: 'Terminating',
        status: 'False',
        reason: 'NeverEstablished',
        message: 'resource was never established',
      });
    }
    await this.crds.guaranteedUpdate('', name, (current) => {
      const meta = current.metadata ?? {};
      meta.finalizers = (meta.finalizers ?? []).filter((finalizer) => finalizer !== CLEANUP_FINALIZER);
      return current;
    });
  }
}
