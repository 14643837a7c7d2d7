// One fake node's kubelet: it registers the Node and keeps its Lease and status current under
// the node's own identity (so the Node authorizer and NodeRestriction apply as to any kubelet),
// and "runs" the pods bound to it: they turn Running with an address from the node's pod CIDR,
// and a pod being deleted is deleted at once (its fake containers stop the moment they are told).
import { NodeLease } from '../../agent/node/lease.js';
import type { NodeFacts } from '../../agent/node/node-object.js';
import { allocatableLags, NodeStatusManager } from '../../agent/node/node-status.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import type { SyncResult } from '../../client/controller.js';
import { PODS } from '../../client/resources.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { fakeNodeFacts } from './node-facts.js';
import { PodAddresses } from './pod-addresses.js';
import { fakePodStatus, podStatusPatch, reportsSameStatus, terminalPhase } from './pod-status.js';

/** What the kubelet reports while the node has no pod CIDR yet (no CNI config to write). */
export const NETWORK_NOT_READY =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

/**
 * Makes a pod's containers exit with this code once it runs (restartPolicy Never, or OnFailure
 * with 0): the pod ends Succeeded or Failed, as a Job's pods do.
 */
export const EXIT_CODE_ANNOTATION = 'fake.tkube.dev/exit-code';

/** How long a pod waits for an address when its node's CIDR is exhausted. */
const NO_ADDRESS_RETRY_MS = 10_000;

export interface FakeKubeletOptions {
  readonly name: string;
  /** The node's InternalIP, and the hostIP of its pods. */
  readonly internalIP: string;
  /** Capacity before the pod CIDR caps `pods`. */
  readonly capacity: Readonly<Record<string, string>>;
  /** Labels beyond the kubelet's well-known ones. */
  readonly labels: Readonly<Record<string, string>>;
  /** A client acting as `system:node:<name>`. */
  readonly client: Client;
  readonly bootID: string;
  /** Told when the node got its pod CIDR: it should report Ready, and its waiting pods can run. */
  readonly onNetworkReady: (kubelet: FakeKubelet) => void;
  /**
   * Told when someone changed the Node's capacity (an extended resource advertised or removed):
   * its status should be reported, as a kubelet's next 10-second status check would.
   */
  readonly onCapacityChanged: (kubelet: FakeKubelet) => void;
}

export class FakeKubelet {
  readonly name: string;
  readonly hostIP: string;
  readonly lease: NodeLease;
  private readonly status: NodeStatusManager;
  private node: Node | undefined;
  private addresses: PodAddresses | undefined;

  constructor(private readonly options: FakeKubeletOptions) {
    this.name = options.name;
    this.hostIP = options.internalIP;
    this.status = new NodeStatusManager(
      options.client,
      { name: options.name, internalIP: options.internalIP, labels: options.labels, taints: [] },
      {
        facts: async () => this.facts(),
        health: async () => ({
          notReadyReasons: this.addresses ? [] : [NETWORK_NOT_READY],
          memoryPressure: false,
          diskPressure: false,
          pidPressure: false,
        }),
      },
    );
    this.lease = new NodeLease(options.client, () => this.node, options.name);
  }

  private facts(): NodeFacts {
    return fakeNodeFacts(
      this.options.name,
      this.options.capacity,
      this.options.bootID,
      this.addresses?.capacity,
    );
  }

  /** Creates the Node (or adopts the one a previous run registered) and its Lease. */
  async register(): Promise<void> {
    this.remember(await this.status.register());
    await this.lease.renew();
  }

  /** Reports status now (conditions, capacity); the Lease is the heartbeat in between. */
  async reportStatus(): Promise<void> {
    this.remember(await this.status.report(true));
  }

  /** The Node as the shared informer sees it: a new pod CIDR readies the pod network. */
  observeNode(node: Node): void {
    this.remember(node);
  }

  /** Records an address a pod reports from an earlier run, so no other pod gets it. */
  claimAddress(pod: Pod): void {
    const address = pod.status?.podIP;
    const uid = pod.metadata?.uid;
    if (address && uid && !pod.spec?.hostNetwork) this.addresses?.claim(uid, address);
  }

  /** The pod is gone: its address is free again. */
  forgetPod(uid: string): void {
    this.addresses?.release(uid);
  }

  /** Brings the pod's reported status in line with what runs on the node. */
  async syncPod(pod: Pod): Promise<SyncResult | undefined> {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const uid = pod.metadata?.uid ?? '';
    if (pod.metadata?.deletionTimestamp) {
      this.forgetPod(uid);
      // Asked already (or force-deleted): what remains waits for its finalizers.
      if (pod.metadata.deletionGracePeriodSeconds === 0) return undefined;
      await this.deletePod(namespace, name, uid);
      return undefined;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.forgetPod(uid);
      return undefined;
    }
    const podIP = this.addressFor(pod);
    if (podIP === undefined) {
      // No pod network yet (synced again once it is ready), or no address left (retried, as the
      // kubelet retries a failed sandbox). Host-network pods wait for the network too.
      return this.addresses ? { requeueAfterMs: NO_ADDRESS_RETRY_MS } : undefined;
    }
    const exitCode = phase === 'Running' ? exitCodeOf(pod) : undefined;
    const desired = fakePodStatus(pod, { podIP, hostIP: this.hostIP, now: new Date(), exitCode });
    if (reportsSameStatus(pod.status, desired)) return undefined;
    try {
      await this.options.client
        .resource<Pod>(PODS)
        .patch(namespace, name, 'strategic', podStatusPatch(pod, desired), { subresource: 'status' });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (exitCode !== undefined) this.forgetPod(uid);
    return undefined;
  }

  private addressFor(pod: Pod): string | undefined {
    if (!this.addresses) return undefined;
    if (pod.spec?.hostNetwork) return this.hostIP;
    const uid = pod.metadata?.uid ?? '';
    const reported = pod.status?.podIP;
    if (reported && this.addresses.claim(uid, reported)) return reported;
    return this.addresses.allocate(uid);
  }

  /** What the kubelet does once a pod's containers are gone: delete it for good, if still the same pod. */
  private async deletePod(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.options.client
        .resource<Pod>(PODS)
        .delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (error) {
      // Gone already, or replaced by a pod of the same name.
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  private remember(node: Node): void {
    this.node = node;
    if (allocatableLags(this.facts().resources.allocatable, node.status))
      this.options.onCapacityChanged(this);
    const cidr = node.spec?.podCIDR;
    if (!cidr || this.addresses?.podCidr === cidr) return;
    this.addresses = new PodAddresses(cidr);
    this.options.onNetworkReady(this);
  }
}

/** The annotation's exit code, when the pod's restart policy lets its containers stay exited. */
export function exitCodeOf(pod: Pod): number | undefined {
  const text = pod.metadata?.annotations?.[EXIT_CODE_ANNOTATION];
  if (text === undefined || !/^\d{1,3}$/.test(text) || Number(text) > 255) return undefined;
  const code = Number(text);
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (policy === 'Never' || (policy === 'OnFailure' && terminalPhase(code) === 'Succeeded')) return code;
  return undefined;
}
