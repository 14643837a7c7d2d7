// The taint eviction controller (pkg/controller/tainteviction): pods on a node with NoExecute
// taints they do not tolerate are deleted at once; pods tolerating them for tolerationSeconds are
// deleted when the shortest of those runs out (counted from when the controller saw the taint),
// unless the taint goes first. Each deletion first sets the DisruptionTarget condition and is
// announced by a TaintManagerEviction event. It writes as the node-controller service account,
// whose role it shares upstream.
import { updatePodCondition } from '../../api/pod-conditions.js';
import type { Node, ObjectReference, Pod, Taint } from '../../api/types/core-v1.generated.js';
import { Controller, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import { rfc3339 } from '../../client/events/time.js';
import { type SharedInformer, sleep, waitForCacheSync } from '../../client/informers/index.js';
import { NODES, PODS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import { PODS_BY_NODE_INDEXERS, podsOnNode } from '../nodelifecycle/pods-by-node.js';
import { TimedWorkerQueue } from './timed-workers.js';
import { matchingTolerations, minTolerationTimeMs } from './tolerations.js';

const CONTROLLER_NAME = 'taint-eviction-controller';
const SERVICE_ACCOUNT = 'node-controller';
const DELETE_RETRIES = 5;

export class TaintEvictionController implements RunnableController {
  private readonly nodes: SharedInformer<Node>;
  private readonly pods: SharedInformer<Pod>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  /** The NoExecute taints of each node that has any. */
  private readonly taintedNodes = new Map<string, Taint[]>();
  private readonly evictions: TimedWorkerQueue;
  private readonly nodeUpdates: Controller;
  private readonly podUpdates: Controller;

  constructor(context: ControllerContext) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, CONTROLLER_NAME);
    this.nodes = context.informers.informerFor<Node>(NODES);
    this.pods = context.informers.informerFor<Pod>(PODS, { indexers: PODS_BY_NODE_INDEXERS });
    this.evictions = new TimedWorkerQueue((key, fireAt) => this.deletePod(key, fireAt));
    this.nodeUpdates = new Controller({
      name: 'taint-eviction-nodes',
      sync: async (name) => this.handleNodeUpdate(name),
    });
    this.podUpdates = new Controller({
      name: 'taint-eviction-pods',
      sync: async (key) => this.handlePodUpdate(key),
    });
    this.nodes.addEventHandler({
      onAdd: (node) => this.nodeUpdates.enqueue(node),
      onUpdate: (oldNode, node) => {
        if (!sameTaints(noExecuteTaints(oldNode), noExecuteTaints(node))) this.nodeUpdates.enqueue(node);
      },
      onDelete: (deleted) => this.nodeUpdates.enqueue(deleted),
    });
    this.pods.addEventHandler({
      onAdd: (pod) => this.podUpdates.enqueue(pod),
      onUpdate: (oldPod, pod) => {
        const unchanged =
          oldPod.spec?.nodeName === pod.spec?.nodeName &&
          JSON.stringify(oldPod.spec?.tolerations ?? []) === JSON.stringify(pod.spec?.tolerations ?? []);
        if (!unchanged) this.podUpdates.enqueue(pod);
      },
      onDelete: (deleted) => this.podUpdates.enqueue(deleted),
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!(await waitForCacheSync(signal, [this.nodes, this.pods]))) return;
    try {
      await Promise.all([this.nodeUpdates.run(signal), this.podUpdates.run(signal)]);
    } finally {
      this.evictions.stop();
    }
  }

  private handleNodeUpdate(name: string): void {
    const node = this.nodes.lister.get('', name);
    if (!node) {
      this.taintedNodes.delete(name);
      return;
    }
    const taints = noExecuteTaints(node);
    // The taints are recorded before the pods are read: a pod bound later sees them.
    if (taints.length === 0) this.taintedNodes.delete(name);
    else this.taintedNodes.set(name, taints);
    const pods = podsOnNode(this.pods, name);
    if (taints.length === 0) {
      for (const pod of pods) this.cancelEviction(keyOfPod(pod));
      return;
    }
    const now = Date.now();
    for (const pod of pods) this.processPodOnNode(keyOfPod(pod), pod, taints, now);
  }

  private handlePodUpdate(key: string): void {
    const { namespace, name } = splitKey(key);
    const pod = this.pods.lister.get(namespace, name);
    if (!pod) {
      this.cancelEviction(key);
      return;
    }
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    // No NoExecute taints: any eviction was cancelled when they went.
    const taints = this.taintedNodes.get(nodeName);
    if (!taints) return;
    this.processPodOnNode(key, pod, taints, Date.now());
  }

  private processPodOnNode(key: string, pod: Pod, taints: readonly Taint[], now: number): void {
    const { allTolerated, used } = matchingTolerations(taints, pod.spec?.tolerations);
    if (!allTolerated) {
      // Deleted right away: whatever was scheduled is moot.
      this.cancelEviction(key);
      this.evictions.add(key, now, now);
      return;
    }
    const minMs = minTolerationTimeMs(used);
    if (minMs < 0) {
      this.cancelEviction(key);
      return;
    }
    const triggerAt = now + minMs;
    const scheduled = this.evictions.pending(key);
    let startAt = now;
    if (scheduled) {
      startAt = scheduled.createdAt;
      // The eviction already scheduled comes sooner: keep it.
      if (startAt + minMs < triggerAt) return;
      this.cancelEviction(key);
    }
    this.evictions.add(key, startAt, triggerAt);
  }

  private cancelEviction(key: string): void {
    if (this.evictions.cancel(key)) {
      this.recorder.event(
        podReference(key),
        'Normal',
        'TaintManagerEviction',
        `Cancelling deletion of Pod ${key}`,
      );
    }
  }

  /** Marks the pod as a disruption target and deletes it; true when that worked. */
  private async deletePod(key: string, _fireAt: number): Promise<boolean> {
    this.recorder.event(
      podReference(key),
      'Normal',
      'TaintManagerEviction',
      `Marking for deletion Pod ${key}`,
    );
    const { namespace, name } = splitKey(key);
    const pods = this.client.resource<Pod>(PODS);
    let lastError: unknown;
    for (let attempt = 0; attempt < DELETE_RETRIES; attempt++) {
      try {
        const pod = await pods.get(namespace, name);
        const status = structuredClone(pod.status ?? {});
        const changed = updatePodCondition(
          status,
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'DeletionByTaintManager',
            message: 'Taint manager: deleting due to NoExecute taint',
          },
          rfc3339(Date.now()),
        );
        if (changed) {
          await pods.patch(
            namespace,
            name,
            'strategic',
            { metadata: { uid: pod.metadata?.uid }, status: { conditions: status.conditions } },
            { subresource: 'status' },
          );
        }
        await pods.delete(namespace, name);
        return true;
      } catch (error) {
        if (isNotFound(error)) return true;
        lastError = error;
        await sleep(10);
      }
    }
    console.error(`${CONTROLLER_NAME}: deleting pod ${key} failed: ${String(lastError)}`);
    return false;
  }
}

function noExecuteTaints(node: Node): Taint[] {
  return (node.spec?.taints ?? []).filter((taint) => taint.effect === 'NoExecute');
}

function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function keyOfPod(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

function podReference(key: string): ObjectReference {
  const { namespace, name } = splitKey(key);
  return { apiVersion: 'v1', kind: 'Pod', namespace, name };
}

export const taintEvictionController: ControllerDescriptor = {
  name: CONTROLLER_NAME,
  create: (context) => new TaintEvictionController(context),
};
