// How many pods a budget expects (DisruptionController.getExpectedPodCount): an integer
// minAvailable counts the selected pods; a percentage or maxUnavailable sums the scale of the
// pods' controllers, found through their controller references — ReplicationController,
// Deployment (through its ReplicaSet), ReplicaSet, StatefulSet, then any resource's `scale`.
import { findByKind } from '../../api/resources/lookup.js';
import type { Deployment, ReplicaSet, StatefulSet } from '../../api/types/apps-v1.generated.js';
import type { Scale } from '../../api/types/autoscaling-v1.generated.js';
import type { Pod, ReplicationController } from '../../api/types/core-v1.generated.js';
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import type { PodDisruptionBudget } from '../../api/types/policy-v1.generated.js';
import type { Lister } from '../../client/informers/index.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { controllerRefOf } from '../controller-utils/owner-references.js';
import { scaledValue } from '../deployment/deployment-util.js';

/** A controller found for a pod, and the number of replicas it asks for. */
export interface ControllerScale {
  readonly uid: string;
  readonly scale: number;
}

export interface ExpectedPodCount {
  readonly expectedCount: number;
  readonly desiredHealthy: number;
  /** Selected pods without a controller reference (they count nowhere). */
  readonly unmanagedPods: readonly string[];
}

export interface WorkloadListers {
  readonly replicationControllers: Lister<ReplicationController>;
  readonly replicaSets: Lister<ReplicaSet>;
  readonly deployments: Lister<Deployment>;
  readonly statefulSets: Lister<StatefulSet>;
}

type Finder = (reference: OwnerReference, namespace: string) => Promise<ControllerScale | undefined>;

/** schema.ParseGroupVersion: `v1`, `apps/v1`, or '' (nothing); anything else is an error. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/** verifyGroupKind: the reference names `kind` in one of `groups`. */
function refersTo(reference: OwnerReference, kind: string, groups: readonly string[]): boolean {
  const { group } = parseGroupVersion(reference.apiVersion);
  return reference.kind === kind && groups.includes(group);
}

export class ExpectedPods {
  private readonly finders: readonly Finder[];

  constructor(
    private readonly listers: WorkloadListers,
    private readonly client: Client,
  ) {
    // The listers answer for the built-in workloads; the scale subresource for everything else.
    this.finders = [
      async (ref, ns) => this.replicationController(ref, ns),
      async (ref, ns) => this.deployment(ref, ns),
      async (ref, ns) => this.replicaSet(ref, ns),
      async (ref, ns) => this.statefulSet(ref, ns),
      (ref, ns) => this.scaleOf(ref, ns),
    ];
  }

  /** desiredHealthy and the pod count behind it; throws what upstream reports as CalculateExpectedPodCountFailed. */
  async count(pdb: PodDisruptionBudget, pods: readonly Pod[]): Promise<ExpectedPodCount> {
    const { maxUnavailable, minAvailable } = pdb.spec ?? {};
    if (maxUnavailable !== undefined && maxUnavailable !== null) {
      const { expectedCount, unmanagedPods } = await this.expectedScale(pods);
      const unavailable = scaledValue(maxUnavailable, expectedCount, true);
      return { expectedCount, desiredHealthy: Math.max(0, expectedCount - unavailable), unmanagedPods };
    }
    if (typeof minAvailable === 'number') {
      return { expectedCount: pods.length, desiredHealthy: minAvailable, unmanagedPods: [] };
    }
    if (typeof minAvailable === 'string') {
      const { expectedCount, unmanagedPods } = await this.expectedScale(pods);
      return { expectedCount, desiredHealthy: scaledValue(minAvailable, expectedCount, true), unmanagedPods };
    }
    return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
  }

  /** The sum of the scales of the pods' controllers (each counted once). */
  async expectedScale(pods: readonly Pod[]): Promise<{ expectedCount: number; unmanagedPods: string[] }> {
    const scales = new Map<string, number>();
    const unmanagedPods: string[] = [];
    for (const pod of pods) {
      const reference = controllerRefOf(pod);
      if (!reference) {
        unmanagedPods.push(pod.metadata?.name ?? '');
        continue;
      }
      if (scales.has(reference.uid)) continue;
      const found = await this.find(reference, pod.metadata?.namespace ?? '');
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? '')}`);
      scales.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const scale of scales.values()) expectedCount += scale;
    return { expectedCount, unmanagedPods };
  }

  private async find(reference: OwnerReference, namespace: string): Promise<ControllerScale | undefined> {
    for (const finder of this.finders) {
      const found = await finder(reference, namespace);
      if (found) return found;
    }
    return undefined;
  }

  private replicationController(reference: OwnerReference, namespace: string): ControllerScale | undefined {
    if (!refersTo(reference, 'ReplicationController', [''])) return undefined;
    const rc = this.listers.replicationControllers.get(namespace, reference.name);
    if (rc?.metadata?.uid !== reference.uid) return undefined;
    return { uid: reference.uid, scale: rc.spec?.replicas ?? 1 };
  }

  /** A ReplicaSet's own scale, unless a Deployment controls it (that one counts instead). */
  private replicaSet(reference: OwnerReference, namespace: string): ControllerScale | undefined {
    const rs = this.ownedReplicaSet(reference, namespace);
    if (!rs || controllerRefOf(rs)?.kind === 'Deployment') return undefined;
    return { uid: reference.uid, scale: rs.spec?.replicas ?? 1 };
  }

  private deployment(reference: OwnerReference, namespace: string): ControllerScale | undefined {
    const rs = this.ownedReplicaSet(reference, namespace);
    const deploymentRef = rs && controllerRefOf(rs);
    if (!deploymentRef || !refersTo(deploymentRef, 'Deployment', ['apps', 'extensions'])) return undefined;
    const deployment = this.listers.deployments.get(namespace, deploymentRef.name);
    if (deployment?.metadata?.uid !== deploymentRef.uid) return undefined;
    return { uid: deploymentRef.uid, scale: deployment.spec?.replicas ?? 1 };
  }

  private ownedReplicaSet(reference: OwnerReference, namespace: string): ReplicaSet | undefined {
    if (!refersTo(reference, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = this.listers.replicaSets.get(namespace, reference.name);
    return rs?.metadata?.uid === reference.uid ? rs : undefined;
  }

  private statefulSet(reference: OwnerReference, namespace: string): ControllerScale | undefined {
    if (!refersTo(reference, 'StatefulSet', ['apps'])) return undefined;
    const set = this.listers.statefulSets.get(namespace, reference.name);
    if (set?.metadata?.uid !== reference.uid) return undefined;
    return { uid: reference.uid, scale: set.spec?.replicas ?? 1 };
  }

  /** getScaleController: the `scale` subresource of whatever the reference names. */
  private async scaleOf(reference: OwnerReference, namespace: string): Promise<ControllerScale | undefined> {
    const { group, version } = parseGroupVersion(reference.apiVersion);
    const info = findByKind(group, reference.kind, version);
    if (!info) {
      const searched = group === '' ? version : `${group}/${version}`;
      throw new Error(
        `no matches for kind ${JSON.stringify(reference.kind)} in version ${JSON.stringify(searched)}`,
      );
    }
    const scaleSub = info.subresources.find((sub) => sub.name === 'scale' && sub.kind === 'Scale');
    if (!scaleSub) {
      const groupResource = info.group === '' ? info.resource : `${info.resource}.${info.group}`;
      throw new Error(`${groupResource} does not implement the scale subresource`);
    }
    let scale: Scale;
    try {
      scale = await this.client.resource(info).getSubresource<Scale>(namespace, reference.name, 'scale');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    if (scale.metadata?.uid !== reference.uid) return undefined;
    return { uid: reference.uid, scale: scale.spec?.replicas ?? 0 };
  }
}
