// VolumeBinding (pkg/scheduler/framework/plugins/volumebinding): a pod's claims decide where it
// may run. PreFilter refuses pods whose claims are missing, being deleted, lost, or unbound in
// an Immediate class; Filter keeps nodes that every bound claim's volume fits (its node affinity)
// and on which every WaitForFirstConsumer claim finds an Available volume or can be provisioned;
// Reserve assumes the choice (so the next pods see those volumes taken); PreBind writes it —
// volumes' claimRefs, claims' `volume.kubernetes.io/selected-node` — and waits until the binder
// and provisioner have bound them all (10 minutes at most, as `bindTimeoutSeconds`).

import {
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  claimClass,
  claimReference,
  findMatchingVolume,
  isDelayBinding,
  isVolumeBoundToClaim,
  requestedBytes,
  volumeFitsNode,
} from '../../../api/storage/persistent-volumes.js';
import { claimNamesOfPod } from '../../../api/storage/pod-claims.js';
import type {
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
} from '../../../api/types/core-v1.generated.js';
import type { StorageClass } from '../../../api/types/storage-v1.generated.js';
import type { NodeInfo } from '../../cache/node-info.js';
import type { PodInfo } from '../../cache/pod-info.js';
import type { ClusterObjects } from '../../cluster-objects.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import { ActionType } from '../../framework/events.js';
import type { FrameworkHandle } from '../../framework/handle.js';
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreBindPlugin,
  PreFilterPlugin,
  PreFilterResult,
  ReservePlugin,
} from '../../framework/interfaces.js';
import { Code, Status } from '../../framework/status.js';
import { PluginNames } from '../names.js';

export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity";
export const ERR_REASON_PV_NOT_EXIST =
  'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ERR_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
/** A class whose volumes are all made by hand: a claim can only bind to an existing one. */
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';
const BIND_TIMEOUT_MS = 600_000;
const BIND_POLL_MS = 200;
const STATE_KEY = `PreFilter${PluginNames.VolumeBinding}`;

/** The writes PreBind makes: the scheduler's client. */
export interface VolumeApi {
  updatePersistentVolume(volume: PersistentVolume): Promise<PersistentVolume>;
  updatePersistentVolumeClaim(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim>;
}

interface PodVolumes {
  /** Available volumes chosen for delayed claims, with the claimRef they get. */
  readonly bindings: { volume: PersistentVolume; claim: PersistentVolumeClaim }[];
  /** Delayed claims to provision on the node. */
  readonly provisions: PersistentVolumeClaim[];
}

class VolumeBindingState implements StateData {
  readonly byNode = new Map<string, PodVolumes>();
  allBound = true;
  constructor(
    readonly bound: readonly PersistentVolumeClaim[],
    readonly delayed: readonly PersistentVolumeClaim[],
  ) {}
  // Shared between preemption's per-node clones, as upstream's stateData is.
  clone(): StateData {
    return this;
  }
}

export class VolumeBinding
  implements PreFilterPlugin, FilterPlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions
{
  readonly name = PluginNames.VolumeBinding;
  private readonly objects: ClusterObjects;
  /**
   * The assume cache: volumes and claims as Reserve left them, each with the resourceVersion it
   * was assumed on; once the informer holds a newer version, that one counts.
   */
  private readonly assumedVolumes = new Map<string, Assumed<PersistentVolume>>();
  private readonly assumedClaims = new Map<string, Assumed<PersistentVolumeClaim>>();

  constructor(
    private readonly handle: FrameworkHandle,
    private readonly api: VolumeApi | undefined,
  ) {
    this.objects = handle.objects;
  }

  preFilter(state: CycleState, podInfo: PodInfo): PreFilterResult | null {
    const pod = podInfo.pod;
    const claims: PersistentVolumeClaim[] = [];
    let problem: string | undefined;
    const ephemeral = new Set(
      (pod.spec?.volumes ?? [])
        .filter((volume) => volume.ephemeral)
        .map((v) => `${pod.metadata?.name}-${v.name}`),
    );
    for (const name of claimNamesOfPod(pod)) {
      const claim = this.claim(podInfo.namespace, name);
      if (!claim) {
        problem = ephemeral.has(name)
          ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"`
          : `persistentvolumeclaim "${name}" not found`;
      } else if (claim.status?.phase === 'Lost') {
        problem = `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${claim.spec?.volumeName ?? ''}"`;
      } else if (claim.metadata?.deletionTimestamp) {
        problem = `persistentvolumeclaim "${name}" is being deleted`;
      } else if (ephemeral.has(name) && !ownedBy(claim, pod)) {
        problem = `PVC ${podInfo.namespace}/${name} was not created for pod ${podInfo.namespace}/${pod.metadata?.name} (pod is not owner)`;
      }
      if (problem !== undefined) return { status: Status.unresolvable(problem) };
      if (claim) claims.push(claim);
    }
    if (claims.length === 0) return { status: Status.skip() };
    const bound: PersistentVolumeClaim[] = [];
    const delayed: PersistentVolumeClaim[] = [];
    let immediate = false;
    for (const claim of claims) {
      if (claim.spec?.volumeName && claim.metadata?.annotations?.[ANN_BIND_COMPLETED] !== undefined)
        bound.push(claim);
      else if (!claim.spec?.volumeName && isDelayBinding(claim, (name) => this.storageClass(name)))
        delayed.push(claim);
      else immediate = true;
    }
    if (immediate) return { status: Status.unresolvable(ERR_UNBOUND_IMMEDIATE) };
    state.write(STATE_KEY, new VolumeBindingState(bound, delayed));
    return null;
  }

  filter(state: CycleState, _podInfo: PodInfo, nodeInfo: NodeInfo): Status | null {
    const data = state.require<VolumeBindingState>(STATE_KEY);
    const node = nodeInfo.node;
    if (node === null) return Status.unresolvable('node not found');
    let result: { volumes: PodVolumes; reasons: string[] };
    try {
      result = this.findPodVolumes(data, node);
    } catch (error) {
      return Status.fromError(error);
    }
    if (result.reasons.length > 0) return Status.unresolvable(...result.reasons);
    data.byNode.set(node.metadata?.name ?? '', result.volumes);
    return null;
  }

  /** FindPodVolumes: the reasons the node cannot serve the claims, or what binding would do. */
  private findPodVolumes(data: VolumeBindingState, node: Node): { volumes: PodVolumes; reasons: string[] } {
    const nodeName = node.metadata?.name ?? '';
    const labels = node.metadata?.labels ?? {};
    const reasons = new Set<string>();
    for (const claim of data.bound) {
      const volume = this.volume(claim.spec?.volumeName ?? '');
      if (!volume) reasons.add(ERR_REASON_PV_NOT_EXIST);
      else if (!volumeFitsNode(volume, nodeName, labels)) reasons.add(ERR_REASON_NODE_CONFLICT);
    }
    const volumes: PodVolumes = { bindings: [], provisions: [] };
    const toMatch: PersistentVolumeClaim[] = [];
    for (const claim of data.delayed) {
      const selected = this.claimOf(claim).metadata?.annotations?.[ANN_SELECTED_NODE];
      if (selected === undefined) toMatch.push(claim);
      else if (selected === nodeName) volumes.provisions.push(claim);
      else reasons.add(ERR_REASON_BIND_CONFLICT);
    }
    // The smallest requests choose first, so each gets the smallest volume that fits it.
    toMatch.sort((a, b) =>
      requestedBytes(a) < requestedBytes(b) ? -1 : requestedBytes(a) > requestedBytes(b) ? 1 : 0,
    );
    const chosen = new Set<string>();
    const unmatched: PersistentVolumeClaim[] = [];
    for (const claim of toMatch) {
      const volume = findMatchingVolume(claim, this.volumeView(), { name: nodeName, labels }, true, chosen);
      if (volume) {
        chosen.add(volume.metadata?.name ?? '');
        volumes.bindings.push({ volume, claim });
      } else {
        unmatched.push(claim);
      }
    }
    for (const claim of unmatched) {
      const className = claimClass(claim);
      if (className === '') throw new Error(`no class for claim "${claim.metadata?.name}"`);
      const storageClass = this.storageClass(className);
      if (!storageClass) throw new Error(`failed to find storage class "${className}"`);
      if (storageClass.provisioner === NO_PROVISIONER || !topologyAllows(storageClass, labels)) {
        reasons.add(ERR_REASON_BIND_CONFLICT);
        continue;
      }
      volumes.provisions.push(claim);
    }
    return { volumes, reasons: [...reasons] };
  }

  reserve(state: CycleState, _podInfo: PodInfo, nodeName: string): Status | null {
    const data = state.read<VolumeBindingState>(STATE_KEY);
    const volumes = data?.byNode.get(nodeName);
    if (!data || !volumes) return null;
    let pending = 0;
    for (const { volume, claim } of volumes.bindings) {
      if (isVolumeBoundToClaim(volume, claim)) continue;
      pending++;
      this.assumedVolumes.set(
        volume.metadata?.name ?? '',
        assume(volume, {
          ...volume,
          metadata: {
            ...volume.metadata,
            annotations: { ...volume.metadata?.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' },
          },
          spec: {
            ...volume.spec,
            claimRef: claimReference(claim),
          },
        }),
      );
    }
    for (const claim of volumes.provisions) {
      pending++;
      const current = this.claimOf(claim);
      this.assumedClaims.set(
        claimKey(claim),
        assume(current, {
          ...current,
          metadata: {
            ...current.metadata,
            annotations: { ...current.metadata?.annotations, [ANN_SELECTED_NODE]: nodeName },
          },
        }),
      );
    }
    data.allBound = pending === 0;
    return null;
  }

  unreserve(state: CycleState, _podInfo: PodInfo, nodeName: string): void {
    const volumes = state.read<VolumeBindingState>(STATE_KEY)?.byNode.get(nodeName);
    if (volumes) this.forget(volumes);
  }

  async preBind(state: CycleState, _podInfo: PodInfo, nodeName: string): Promise<Status | null> {
    const data = state.read<VolumeBindingState>(STATE_KEY);
    const volumes = data?.byNode.get(nodeName);
    if (!data || data.allBound || !volumes) return null;
    if (this.api === undefined)
      return new Status(Code.Error, ['binding volumes: no API to write the bindings']);
    try {
      for (const { volume } of volumes.bindings) {
        const assumed = this.assumedVolumes.get(volume.metadata?.name ?? '');
        if (assumed) await this.api.updatePersistentVolume(assumed.object);
      }
      for (const claim of volumes.provisions) {
        const assumed = this.assumedClaims.get(claimKey(claim));
        const current = this.objects.persistentVolumeClaims.get(
          claim.metadata?.namespace ?? '',
          claim.metadata?.name ?? '',
        );
        if (assumed && current?.metadata?.annotations?.[ANN_SELECTED_NODE] !== nodeName)
          await this.api.updatePersistentVolumeClaim(assumed.object);
      }
      await this.waitForBindings(volumes, nodeName);
      return null;
    } catch (error) {
      return new Status(Code.Error, [
        `binding volumes: ${error instanceof Error ? error.message : String(error)}`,
      ]);
    } finally {
      this.forget(volumes);
    }
  }

  /** checkBindings, polled until every claim is bound (or something undid the plan). */
  private async waitForBindings(volumes: PodVolumes, nodeName: string): Promise<void> {
    const deadline = Date.now() + BIND_TIMEOUT_MS;
    for (;;) {
      if (this.bindingsDone(volumes, nodeName)) return;
      if (Date.now() >= deadline) throw new Error('context deadline exceeded');
      await new Promise((resolve) => setTimeout(resolve, BIND_POLL_MS));
    }
  }

  private bindingsDone(volumes: PodVolumes, nodeName: string): boolean {
    let done = true;
    for (const { volume, claim } of volumes.bindings) {
      const current = this.volume(volume.metadata?.name ?? '');
      if (!current)
        throw new Error(`failed to check binding: persistentvolume "${volume.metadata?.name}" not found`);
      if (!current.spec?.claimRef) throw new Error(`ClaimRef got reset for pv "${volume.metadata?.name}"`);
      if (!this.claimBound(claim, nodeName)) done = false;
    }
    for (const claim of volumes.provisions) {
      const current = this.claimOf(claim);
      if (current.metadata?.annotations?.[ANN_SELECTED_NODE] === undefined)
        throw new Error(`selectedNode annotation reset for PVC "${claim.metadata?.name}"`);
      if (!this.claimBound(claim, nodeName)) done = false;
    }
    return done;
  }

  /** The claim is fully bound to a volume that fits the node. */
  private claimBound(claim: PersistentVolumeClaim, nodeName: string): boolean {
    const current = this.claim(claim.metadata?.namespace ?? '', claim.metadata?.name ?? '');
    if (!current)
      throw new Error(`failed to check binding: persistentvolumeclaim "${claim.metadata?.name}" not found`);
    const volumeName = current.spec?.volumeName ?? '';
    if (volumeName === '' || current.metadata?.annotations?.[ANN_BIND_COMPLETED] === undefined) return false;
    const volume = this.volume(volumeName);
    if (!volume?.spec?.claimRef) return false;
    const labels = this.nodeLabels(nodeName);
    if (labels && !volumeFitsNode(volume, nodeName, labels))
      throw new Error(`pv "${volumeName}" node affinity doesn't match node "${nodeName}"`);
    return true;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'PersistentVolumeClaim', actionType: ActionType.Add | ActionType.UpdateOther } },
      { event: { resource: 'PersistentVolume', actionType: ActionType.Add | ActionType.UpdateOther } },
      { event: { resource: 'StorageClass', actionType: ActionType.Add | ActionType.UpdateOther } },
      {
        event: {
          resource: 'Node',
          actionType: ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint,
        },
      },
    ];
  }

  private forget(volumes: PodVolumes): void {
    for (const { volume } of volumes.bindings) this.assumedVolumes.delete(volume.metadata?.name ?? '');
    for (const claim of volumes.provisions) this.assumedClaims.delete(claimKey(claim));
  }

  /** The node's labels from the latest snapshot (undefined once the node is gone). */
  private nodeLabels(nodeName: string): Readonly<Record<string, string>> | undefined {
    const node = this.handle.snapshot().get(nodeName)?.node;
    return node ? (node.metadata?.labels ?? {}) : undefined;
  }

  private claim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return latest(
      this.objects.persistentVolumeClaims.get(namespace, name),
      this.assumedClaims.get(`${namespace}/${name}`),
    );
  }

  private claimOf(claim: PersistentVolumeClaim): PersistentVolumeClaim {
    return this.claim(claim.metadata?.namespace ?? '', claim.metadata?.name ?? '') ?? claim;
  }

  private volume(name: string): PersistentVolume | undefined {
    return latest(this.objects.persistentVolumes.get('', name), this.assumedVolumes.get(name));
  }

  /** The informer's volumes with the assumed ones in their place. */
  private *volumeView(): Generator<PersistentVolume> {
    for (const volume of this.objects.persistentVolumes.list())
      yield latest(volume, this.assumedVolumes.get(volume.metadata?.name ?? '')) ?? volume;
  }

  private storageClass(name: string): StorageClass | undefined {
    return this.objects.storageClasses.get('', name);
  }
}

interface Assumed<T> {
  readonly object: T;
  /** The informer's resourceVersion the assumption was made on. */
  readonly base: string | undefined;
}

function assume<T extends PersistentVolume | PersistentVolumeClaim>(current: T, object: T): Assumed<T> {
  return { object, base: current.metadata?.resourceVersion };
}

/** The assumed object while the informer has nothing newer than what it was assumed on. */
function latest<T extends PersistentVolume | PersistentVolumeClaim>(
  informer: T | undefined,
  assumed: Assumed<T> | undefined,
): T | undefined {
  if (assumed === undefined) return informer;
  if (informer === undefined || informer.metadata?.resourceVersion === assumed.base) return assumed.object;
  return informer;
}

function claimKey(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`;
}

/** ephemeral.VolumeIsForPod: the claim's controller owner is the pod. */
function ownedBy(claim: PersistentVolumeClaim, pod: Pod): boolean {
  return (claim.metadata?.ownerReferences ?? []).some(
    (owner) => owner.controller === true && owner.uid === pod.metadata?.uid,
  );
}

/** The class's allowedTopologies admit the node (no list: every node). */
function topologyAllows(storageClass: StorageClass, labels: Readonly<Record<string, string>>): boolean {
  const terms = storageClass.allowedTopologies;
  if (!terms || terms.length === 0) return true;
  return terms.some((term) =>
    (term.matchLabelExpressions ?? []).every((expression) =>
      expression.values.includes(labels[expression.key] ?? ''),
    ),
  );
}
