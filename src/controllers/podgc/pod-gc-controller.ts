// The pod garbage collector (pkg/controller/podgc). Every period it force-deletes, after marking
// them Failed: the oldest terminated pods beyond `--terminated-pod-gc-threshold` (evicted ones
// first); terminating pods on a not-Ready node tainted `node.kubernetes.io/out-of-service`; pods
// bound to a node that no longer exists — once the node has stayed missing through a quarantine
// and a direct read confirms it, with the DisruptionTarget condition; and terminating pods that
// were never scheduled.
import { isPodTerminal, updatePodCondition } from '../../api/pod-conditions.js';
import type { Node, Pod, PodCondition } from '../../api/types/core-v1.generated.js';
import { rfc3339 } from '../../client/events/time.js';
import { type SharedInformer, sleep, waitForCacheSync } from '../../client/informers/index.js';
import { NODES, PODS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type {
  ClusterSettings,
  ControllerContext,
  ControllerDescriptor,
  RunnableController,
} from '../context.js';
import { TAINT_OUT_OF_SERVICE } from '../nodelifecycle/node-taints.js';

const SERVICE_ACCOUNT = 'pod-garbage-collector';

export class PodGcController implements RunnableController {
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;
  private readonly client: Client;
  private readonly settings: ClusterSettings;
  /** Names of missing nodes, and when their quarantine ends. */
  private readonly quarantined = new Map<string, number>();
  private readonly log = (message: string): void => console.error(`pod-garbage-collector: ${message}`);

  constructor(context: ControllerContext) {
    this.settings = context.settings;
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.pods = context.informers.informerFor<Pod>(PODS);
    this.nodes = context.informers.informerFor<Node>(NODES);
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!(await waitForCacheSync(signal, [this.pods, this.nodes]))) return;
    while (!signal.aborted) {
      try {
        await this.gc();
      } catch (error) {
        this.log(String(error));
      }
      await sleep(this.settings.podGcPeriodMs, signal);
    }
  }

  async gc(): Promise<void> {
    const pods = this.pods.lister.list();
    const nodes = this.nodes.lister.list();
    if (this.settings.terminatedPodGcThreshold > 0) await this.gcTerminated(pods);
    await this.gcTerminating(pods);
    await this.gcOrphaned(pods, nodes);
    await this.gcUnscheduledTerminating(pods);
  }

  private async gcTerminated(pods: readonly Pod[]): Promise<void> {
    const terminated = pods.filter(
      (pod) => !['Pending', 'Running', 'Unknown'].includes(pod.status?.phase ?? ''),
    );
    const excess = terminated.length - this.settings.terminatedPodGcThreshold;
    if (excess <= 0) return;
    this.log(`garbage collecting ${excess} pods`);
    terminated.sort(byEvictionAndCreation);
    await Promise.all(terminated.slice(0, excess).map((pod) => this.forceDelete(pod)));
  }

  private async gcTerminating(pods: readonly Pod[]): Promise<void> {
    const doomed = pods.filter((pod) => {
      if (!pod.metadata?.deletionTimestamp) return false;
      const node = this.nodes.lister.get('', pod.spec?.nodeName ?? '');
      if (!node) return false;
      const ready =
        node.status?.conditions?.find((condition) => condition.type === 'Ready')?.status === 'True';
      return !ready && (node.spec?.taints ?? []).some((taint) => taint.key === TAINT_OUT_OF_SERVICE);
    });
    doomed.sort(byEvictionAndCreation);
    await Promise.all(doomed.map((pod) => this.forceDelete(pod)));
  }

  private async gcOrphaned(pods: readonly Pod[], nodes: readonly Node[]): Promise<void> {
    const existing = new Set(nodes.map((node) => node.metadata?.name ?? ''));
    const now = Date.now();
    // Unknown nodes wait out a quarantine: the node informer may just be behind.
    for (const pod of pods) {
      const nodeName = pod.spec?.nodeName;
      if (nodeName && !existing.has(nodeName) && !this.quarantined.has(nodeName)) {
        this.quarantined.set(nodeName, now + this.settings.podGcQuarantineMs);
      }
    }
    const deleted = new Set<string>();
    for (const [nodeName, until] of [...this.quarantined]) {
      if (until > now) continue;
      this.quarantined.delete(nodeName);
      if (existing.has(nodeName)) continue;
      try {
        await this.client.resource<Node>(NODES).get('', nodeName);
      } catch (error) {
        if (isNotFound(error)) deleted.add(nodeName);
        else this.log(`error while getting node ${nodeName}: ${String(error)}`);
      }
    }
    for (const pod of pods) {
      if (!deleted.has(pod.spec?.nodeName ?? '')) continue;
      await this.forceDelete(pod, {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByPodGC',
        message: 'PodGC: node no longer exists',
      });
    }
  }

  private async gcUnscheduledTerminating(pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp && !pod.spec?.nodeName) await this.forceDelete(pod);
    }
  }

  /** Marks the pod Failed (with the condition, if any) unless it finished, then deletes it at once. */
  private async forceDelete(pod: Pod, condition?: PodCondition): Promise<void> {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    this.log(`PodGC is force deleting Pod ${namespace}/${name}`);
    const pods = this.client.resource<Pod>(PODS);
    try {
      if (!isPodTerminal(pod)) {
        // Without a kubelet nothing else would ever move an orphaned pod out of Running.
        const status = structuredClone(pod.status ?? {});
        if (condition) updatePodCondition(status, condition, rfc3339(Date.now()));
        await pods.patch(
          namespace,
          name,
          'strategic',
          {
            metadata: { uid: pod.metadata?.uid },
            status: { phase: 'Failed', ...(condition ? { conditions: status.conditions } : {}) },
          },
          { subresource: 'status' },
        );
      }
      await pods.delete(namespace, name, { gracePeriodSeconds: 0 });
    } catch (error) {
      if (!isNotFound(error)) this.log(`deleting pod ${namespace}/${name}: ${String(error)}`);
    }
  }
}

/** Evicted pods first, then the oldest, then by name. */
function byEvictionAndCreation(a: Pod, b: Pod): number {
  const evicted = (pod: Pod) => pod.status?.phase === 'Failed' && pod.status.reason === 'Evicted';
  if (evicted(a) !== evicted(b)) return evicted(a) ? -1 : 1;
  const created = (pod: Pod) => Date.parse(pod.metadata?.creationTimestamp ?? '') || 0;
  if (created(a) !== created(b)) return created(a) - created(b);
  const nameA = a.metadata?.name ?? '';
  const nameB = b.metadata?.name ?? '';
  return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
}

export const podGcController: ControllerDescriptor = {
  name: 'pod-garbage-collector-controller',
  create: (context) => new PodGcController(context),
};
