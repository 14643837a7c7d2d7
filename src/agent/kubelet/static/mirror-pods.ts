// Mirror pods: the apiserver's view of this node's static pods (upstream's mirror client and
// tryReconcileMirrorPods). The kubelet's pod informer feeds the mirrors it sees; a static pod's
// sync makes its mirror exist and match, and a mirror whose static pod is gone is deleted. A
// mirror pod is only ever deleted with grace 0 and its uid as precondition: the static pod keeps
// running whatever happens to its mirror.
import type { Node, Pod } from '../../../api/types/core-v1.generated.js';
import { NODES, PODS } from '../../../client/resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import { isMirrorPodOf, mirrorPodFor, podFullName } from './manifest.js';

export interface MirrorPodsOptions {
  readonly client: Client;
  readonly nodeName: string;
  /** The registered Node, when the agent has it (saves a read). */
  readonly node?: () => Node | undefined;
  readonly log?: (message: string) => void;
}

export class MirrorPods {
  private readonly options: MirrorPodsOptions;
  private readonly log: (message: string) => void;
  private readonly mirrors = new Map<string, Pod>();

  constructor(options: MirrorPodsOptions) {
    this.options = options;
    this.log = options.log ?? ((message) => console.error(message));
  }

  /** The mirror pod the API holds for a full name (`<namespace>/<name>`), as last seen. */
  get(fullName: string): Pod | undefined {
    return this.mirrors.get(fullName);
  }

  /** Full names of every mirror pod seen. */
  fullNames(): string[] {
    return [...this.mirrors.keys()];
  }

  /** A mirror pod was added or changed in the API; true when it is another object than before. */
  seen(mirror: Pod): boolean {
    const fullName = podFullName(mirror);
    const isNew = this.mirrors.get(fullName)?.metadata?.uid !== mirror.metadata?.uid;
    this.mirrors.set(fullName, mirror);
    return isNew;
  }

  /** The uid of the current mirror of a static pod, or null when it has none (or a stale one). */
  mirrorUidOf(staticPod: Pod): string | null {
    const mirror = this.mirrors.get(podFullName(staticPod));
    if (!mirror || mirror.metadata?.deletionTimestamp || !isMirrorPodOf(mirror, staticPod)) return null;
    return mirror.metadata?.uid ?? null;
  }

  /** A mirror pod was deleted from the API. */
  gone(mirror: Pod): void {
    const fullName = podFullName(mirror);
    // A newer mirror of the same name may be known already.
    if (this.mirrors.get(fullName)?.metadata?.uid !== mirror.metadata?.uid) return;
    this.mirrors.delete(fullName);
  }

  /**
   * Makes the API's mirror of a running static pod exist and match it: one being deleted, or of
   * an earlier manifest, is deleted and created anew.
   */
  async reconcile(staticPod: Pod): Promise<void> {
    const fullName = podFullName(staticPod);
    const mirror = this.mirrors.get(fullName);
    let deleted = false;
    if (mirror && (mirror.metadata?.deletionTimestamp || !isMirrorPodOf(mirror, staticPod))) {
      deleted = await this.delete(fullName, mirror.metadata?.uid);
    }
    if (mirror && !deleted) return;
    const node = await this.node();
    if (!node) {
      this.log(`kubelet: no mirror pod for ${fullName}: node ${this.options.nodeName} is not registered yet`);
      return;
    }
    if (node.metadata?.deletionTimestamp) return;
    try {
      const created = await this.options.client
        .resource<Pod>(PODS)
        .create(mirrorPodFor(staticPod, { name: this.options.nodeName, uid: node.metadata?.uid ?? '' }));
      this.mirrors.set(fullName, created);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  /** Deletes the mirror pod of a full name (only the one with `uid` when given); true if it went. */
  async delete(fullName: string, uid?: string): Promise<boolean> {
    const slash = fullName.indexOf('/');
    const namespace = fullName.slice(0, slash);
    const name = fullName.slice(slash + 1);
    try {
      await this.options.client
        .resource<Pod>(PODS)
        .delete(namespace, name, { gracePeriodSeconds: 0, ...(uid && { preconditions: { uid } }) });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
      if (isConflict(error)) return false;
    }
    if (!uid || this.mirrors.get(fullName)?.metadata?.uid === uid) this.mirrors.delete(fullName);
    return true;
  }

  private async node(): Promise<Node | undefined> {
    const known = this.options.node?.();
    if (known?.metadata?.uid) return known;
    try {
      return await this.options.client.resource<Node>(NODES).get('', this.options.nodeName);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
