/**
 * Which objects each node may reach, as the Node authorizer's graph records it: a pod bound to a
 * node reaches its secrets, configmaps, PVCs, service account and resource claims; a PV bound to
 * a reachable PVC and the secrets that PV mounts with are reachable too; volume attachments and
 * resource slices name their node. Kept as reference counts per object and node, so an update
 * costs the size of the object that changed and a check is a few map lookups.
 */
import { isMirrorPod } from '../../../api/mirror-pods.js';
import type { PersistentVolume, Pod, PodSpec } from '../../../api/types/core-v1.generated.js';
import {
  persistentVolumeKubeletSecrets,
  podClaimNames,
  podConfigMapNames,
  podResourceClaimNames,
  podSecretNames,
} from './pod-references.js';

/** The kinds of object a node's access is checked against. */
export type VertexType =
  | 'pod'
  | 'secret'
  | 'configmap'
  | 'pvc'
  | 'pv'
  | 'serviceaccount'
  | 'resourceclaim'
  | 'volumeattachment'
  | 'resourceslice';

/** Kubernetes' annotation on a static pod's API object. */

interface PodEntry {
  readonly node: string;
  readonly uid: string;
  /** The status entries resource claim names were taken from, to notice when they change. */
  readonly claimStatuses: string;
  /** Keys of the objects this pod makes reachable from its node. */
  readonly references: readonly string[];
}

interface VolumeEntry {
  readonly claim: string;
  readonly secrets: readonly string[];
}

export class NodeGraph {
  private readonly pods = new Map<string, PodEntry>();
  /** Object key → node → how many of that node's pods reference the object. */
  private readonly reachers = new Map<string, Map<string, number>>();
  private readonly volumes = new Map<string, VolumeEntry>();
  /** PVC key → names of the PVs bound to it. */
  private readonly volumesByClaim = new Map<string, Set<string>>();
  /** Secret key → names of the PVs that mount with it. */
  private readonly volumesBySecret = new Map<string, Set<string>>();
  private readonly attachments = new Map<string, string>();
  private readonly slices = new Map<string, string>();

  /**
   * Records a pod. Only pods bound to a node count; references in a bound pod's spec cannot
   * change, so an update is only re-read when the node, the uid or the claim statuses differ.
   */
  setPod(pod: Pod): void {
    const node = pod.spec?.nodeName ?? '';
    if (node === '') return;
    const key = objectKey('pod', pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    const uid = pod.metadata?.uid ?? '';
    const claimStatuses = JSON.stringify(pod.status?.resourceClaimStatuses ?? []);
    const existing = this.pods.get(key);
    if (
      existing &&
      existing.node === node &&
      existing.uid === uid &&
      existing.claimStatuses === claimStatuses
    )
      return;
    this.deletePodKey(key);
    const references = isMirrorPod(pod) ? [] : podReferences(pod);
    for (const reference of references) increment(this.reachers, reference, node);
    this.pods.set(key, { node, uid, claimStatuses, references });
  }

  deletePod(namespace: string, name: string): void {
    this.deletePodKey(objectKey('pod', namespace, name));
  }

  private deletePodKey(key: string): void {
    const entry = this.pods.get(key);
    if (!entry) return;
    for (const reference of entry.references) decrement(this.reachers, reference, entry.node);
    this.pods.delete(key);
  }

  /** Records a persistent volume: bound to a claim, it and its kubelet secrets follow the claim. */
  setPersistentVolume(pv: PersistentVolume): void {
    const name = pv.metadata?.name ?? '';
    this.deletePersistentVolume(name);
    const claimRef = pv.spec?.claimRef;
    if (!claimRef) return;
    const claim = objectKey('pvc', claimRef.namespace ?? '', claimRef.name ?? '');
    const secrets = [
      ...new Set(
        persistentVolumeKubeletSecrets(pv).map((ref) => objectKey('secret', ref.namespace, ref.name)),
      ),
    ];
    this.volumes.set(name, { claim, secrets });
    addToSet(this.volumesByClaim, claim, name);
    for (const secret of secrets) addToSet(this.volumesBySecret, secret, name);
  }

  deletePersistentVolume(name: string): void {
    const entry = this.volumes.get(name);
    if (!entry) return;
    removeFromSet(this.volumesByClaim, entry.claim, name);
    for (const secret of entry.secrets) removeFromSet(this.volumesBySecret, secret, name);
    this.volumes.delete(name);
  }

  /** Records the node a volume attachment is for ('' or undefined forgets it). */
  setVolumeAttachment(name: string, node: string | undefined): void {
    if (node) this.attachments.set(name, node);
    else this.attachments.delete(name);
  }

  /** Records the node a resource slice belongs to ('' or undefined forgets it). */
  setResourceSlice(name: string, node: string | undefined): void {
    if (node) this.slices.set(name, node);
    else this.slices.delete(name);
  }

  /** Forgets everything (before a relist). */
  clear(): void {
    for (const map of [
      this.pods,
      this.reachers,
      this.volumes,
      this.volumesByClaim,
      this.volumesBySecret,
      this.attachments,
      this.slices,
    ]) {
      map.clear();
    }
  }

  /** Whether the object is related to the node (namespace '' for cluster-scoped kinds). */
  reaches(node: string, type: VertexType, namespace: string, name: string): boolean {
    switch (type) {
      case 'pod':
        return this.pods.get(objectKey('pod', namespace, name))?.node === node;
      case 'pv':
        return this.volumeReaches(node, name);
      case 'volumeattachment':
        return this.attachments.get(name) === node;
      case 'resourceslice':
        return this.slices.get(name) === node;
      case 'secret': {
        const key = objectKey('secret', namespace, name);
        if (this.referencedFrom(key, node)) return true;
        for (const volume of this.volumesBySecret.get(key) ?? []) {
          if (this.volumeReaches(node, volume)) return true;
        }
        return false;
      }
      default:
        return this.referencedFrom(objectKey(type, namespace, name), node);
    }
  }

  private referencedFrom(key: string, node: string): boolean {
    return (this.reachers.get(key)?.get(node) ?? 0) > 0;
  }

  private volumeReaches(node: string, volume: string): boolean {
    const entry = this.volumes.get(volume);
    return entry !== undefined && this.referencedFrom(entry.claim, node);
  }
}

function podReferences(pod: Pod): string[] {
  const namespace = pod.metadata?.namespace ?? '';
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const keys = new Set<string>();
  const add = (type: VertexType, names: readonly string[]) => {
    for (const name of names) keys.add(objectKey(type, namespace, name));
  };
  // The pod's service account is reachable whether or not a token is mounted, as upstream.
  if (spec.serviceAccountName) add('serviceaccount', [spec.serviceAccountName]);
  add('secret', podSecretNames(spec));
  add('configmap', podConfigMapNames(spec));
  add('pvc', podClaimNames(pod));
  add('resourceclaim', podResourceClaimNames(pod));
  return [...keys];
}

function objectKey(type: VertexType, namespace: string, name: string): string {
  return `${type}\u0000${namespace}\u0000${name}`;
}

function increment(counts: Map<string, Map<string, number>>, key: string, node: string): void {
  let perNode = counts.get(key);
  if (!perNode) {
    perNode = new Map();
    counts.set(key, perNode);
  }
  perNode.set(node, (perNode.get(node) ?? 0) + 1);
}

function decrement(counts: Map<string, Map<string, number>>, key: string, node: string): void {
  const perNode = counts.get(key);
  const count = perNode?.get(node);
  if (!perNode || count === undefined) return;
  if (count > 1) perNode.set(node, count - 1);
  else {
    perNode.delete(node);
    if (perNode.size === 0) counts.delete(key);
  }
}

function addToSet(sets: Map<string, Set<string>>, key: string, value: string): void {
  let set = sets.get(key);
  if (!set) {
    set = new Set();
    sets.set(key, set);
  }
  set.add(value);
}

function removeFromSet(sets: Map<string, Set<string>>, key: string, value: string): void {
  const set = sets.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) sets.delete(key);
}
