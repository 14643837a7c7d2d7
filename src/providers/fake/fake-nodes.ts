// Simulated nodes (`tkube up --fake-nodes N`): N kubelets in the control plane process, each
// writing as its own node identity, all fed by one shared pod informer and one node informer
// (not a watch per node), with one work queue of pods for all of them — cheap enough for a
// thousand nodes. Beside the controller manager they share its informers: the pod and node
// watches it holds anyway.
import { randomUUID } from 'node:crypto';
import { NODE_LEASE_RENEW_INTERVAL_MS } from '../../agent/node/lease.js';
import { NODE_STATUS_REPORT_FREQUENCY_MS } from '../../agent/node/node-status.js';
import { formatIpv4, parseIpv4Cidr } from '../../api/ipv4.js';
import type { Node, Pod } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf, splitKey } from '../../client/controller.js';
import {
  type HandlerRegistration,
  type SharedInformer,
  SharedInformerFactory,
  sleep,
} from '../../client/informers/index.js';
import { NODES, PODS } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { PODS_BY_NODE_INDEXERS, podsOnNode } from '../../controllers/nodelifecycle/pods-by-node.js';
import { FakeKubelet } from './fake-kubelet.js';
import { fakeNodeCapacity } from './node-facts.js';

/** Whom a client acts as: the control plane's loopback clients take this. */
export interface ClientIdentity {
  readonly name: string;
  readonly groups: readonly string[];
}

/** Makes an in-process client acting as `identity`; `component` names it in the user agent. */
export type ClientFactory = (identity: ClientIdentity, component: string) => Client;

export interface FakeNodesOptions {
  readonly count: number;
  /** Overrides of the default capacity (cpu 8, memory 32Gi, pods 110 ...). */
  readonly capacity?: Readonly<Record<string, string>>;
  /** More labels on every fake node. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Pod status writes in flight at once, across all nodes. Default 8. */
  readonly workers?: number;
  /** How long `start` waits for the nodes' pod CIDRs (their readiness). Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Lease renewal period; the kubelet's 10 s unless a test needs it shorter. */
  readonly leaseRenewIntervalMs?: number;
}

/** Every fake node carries this label (value `true`), so workloads can be steered to or from them. */
export const FAKE_NODE_LABEL = 'fake.tkube.dev/node';
/**
 * `true` on a fake Node stops its kubelet (`stopNode`), removing it (or any other value) starts
 * it again: a node failure an operator's tests can provoke with `kubectl annotate`.
 */
export const FAKE_KUBELET_STOPPED_ANNOTATION = 'fake.tkube.dev/kubelet-stopped';
/** Fake nodes' addresses: the benchmarking range (RFC 2544), which nothing routes. */
const NODE_ADDRESSES = '198.18.0.0/15';
const FIRST_NODE_HOST = 10;
const REGISTRATIONS_AT_ONCE = 32;
const RETRY_MS = 1_000;

/**
 * Reads for all fake kubelets: a node may list only its own pods, so one shared informer needs
 * an identity that may list them all — the controller manager's, whose role has list and watch
 * of everything for exactly this (shared informers). Every write uses the node's identity.
 */
const READER_IDENTITY: ClientIdentity = {
  name: 'system:kube-controller-manager',
  groups: ['system:authenticated'],
};

/** `fake-node-<index>`. */
export function fakeNodeName(index: number): string {
  return `fake-node-${index}`;
}

/** The kubelet's identity, as its client certificate would carry it. */
export function nodeIdentity(nodeName: string): ClientIdentity {
  return { name: `system:node:${nodeName}`, groups: ['system:nodes', 'system:authenticated'] };
}

export class FakeNodes {
  private readonly kubelets = new Map<string, FakeKubelet>();
  private readonly clients: Client[] = [];
  private readonly informers: SharedInformerFactory;
  /** False when the informers are the controller manager's, which starts and stops them. */
  private readonly ownInformers: boolean;
  private readonly registrations: HandlerRegistration[] = [];
  private readonly pods: SharedInformer<Pod>;
  private readonly controller: Controller;
  private readonly abort = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly networkReady = new Set<string>();
  /** Nodes whose kubelet was stopped (`stopNode`): no lease, no status, no pod updates. */
  private readonly stopped = new Set<string>();
  private readonly stoppedByAnnotation = new Set<string>();
  /** Nodes with a capacity-change report running, and whether another is due after it. */
  private readonly reporting = new Map<string, boolean>();
  private allReady: (() => void) | undefined;
  private running: Promise<void> | undefined;

  /**
   * `informers`: a factory reading as an identity that may list and watch every pod and node (the
   * controller manager's); without one the nodes read through their own.
   */
  constructor(
    clientFor: ClientFactory,
    private readonly options: FakeNodesOptions,
    informers?: SharedInformerFactory,
  ) {
    this.ownInformers = informers === undefined;
    if (informers === undefined) {
      const reader = clientFor(READER_IDENTITY, 'fake-kubelet');
      this.clients.push(reader);
      this.informers = new SharedInformerFactory(reader);
    } else this.informers = informers;
    this.pods = this.informers.informerFor<Pod>(PODS, {
      // The controller manager's index by node, when its informer is shared.
      indexers: PODS_BY_NODE_INDEXERS,
    });
    // Every node (the handlers skip the others), so a shared factory's node informer serves.
    const nodes = this.informers.informerFor<Node>(NODES);
    this.controller = new Controller({
      name: 'fake-kubelet',
      workers: options.workers ?? 8,
      // A status write is never given up on: it is retried with capped backoff until it lands.
      maxRetries: Number.MAX_SAFE_INTEGER,
      sync: (key) => this.syncPod(key),
    });
    this.registrations.push(
      this.controller.watch(this.pods, (pod) => {
        const nodeName = pod.spec?.nodeName ?? '';
        return this.kubelets.has(nodeName) && !this.stopped.has(nodeName)
          ? [`${pod.metadata?.namespace}/${pod.metadata?.name}`]
          : undefined;
      }),
      this.pods.addEventHandler({
        onDelete: (deleted) => {
          const pod = objectOf(deleted);
          this.kubelets.get(pod.spec?.nodeName ?? '')?.forgetPod(pod.metadata?.uid ?? '');
        },
      }),
    );
    const observe = (node: Node) => {
      const name = node.metadata?.name ?? '';
      if (!this.kubelets.has(name)) return;
      const stop = node.metadata?.annotations?.[FAKE_KUBELET_STOPPED_ANNOTATION] === 'true';
      // Only a stop the annotation made is undone by its removal (stopNode may be called too).
      if (stop && !this.stopped.has(name)) {
        this.stopNode(name);
        this.stoppedByAnnotation.add(name);
      } else if (!stop && this.stoppedByAnnotation.delete(name)) this.restartNode(name);
      this.kubelets.get(name)?.observeNode(node);
    };
    this.registrations.push(
      nodes.addEventHandler({ onAdd: observe, onUpdate: (_old, node) => observe(node) }),
    );

    const capacity = fakeNodeCapacity(options.capacity);
    const labels = { ...options.labels, [FAKE_NODE_LABEL]: 'true' };
    const addresses = parseIpv4Cidr(NODE_ADDRESSES)!;
    for (let index = 0; index < options.count; index++) {
      const name = fakeNodeName(index);
      const client = clientFor(nodeIdentity(name), 'kubelet');
      this.clients.push(client);
      this.kubelets.set(
        name,
        new FakeKubelet({
          name,
          internalIP: formatIpv4(addresses.base + FIRST_NODE_HOST + index),
          capacity,
          labels,
          client,
          bootID: randomUUID(),
          onNetworkReady: (kubelet) => this.onNetworkReady(kubelet),
          onCapacityChanged: (kubelet) => this.reportSoon(kubelet),
        }),
      );
    }
  }

  /**
   * Registers every node, starts their leases, status reports and pods, and resolves once they
   * are Ready (or the ready timeout has passed: they keep trying).
   */
  async start(): Promise<void> {
    const signal = this.abort.signal;
    const ready = new Promise<void>((resolve) => {
      this.allReady = resolve;
    });
    this.checkAllReady();
    // A shared factory is stopped by its owner, not by this signal.
    this.informers.start(this.ownInformers ? signal : undefined);
    this.running = this.controller.run(signal);
    const queue = [...this.kubelets.values()];
    const registerNext = async (): Promise<void> => {
      for (let kubelet = queue.shift(); kubelet && !signal.aborted; kubelet = queue.shift()) {
        await this.registerWithRetry(kubelet);
      }
    };
    await Promise.all(Array.from({ length: REGISTRATIONS_AT_ONCE }, registerNext));
    const waited = new AbortController();
    const stopWaiting = () => waited.abort();
    signal.addEventListener('abort', stopWaiting, { once: true });
    await Promise.race([ready, sleep(this.options.readyTimeoutMs ?? 30_000, waited.signal)]);
    waited.abort();
    signal.removeEventListener('abort', stopWaiting);
    if (this.networkReady.size < this.kubelets.size && !signal.aborted) {
      console.error(
        `fake nodes: ${this.kubelets.size - this.networkReady.size} of ${this.kubelets.size} have no pod CIDR yet`,
      );
    }
  }

  /** Stops every kubelet; the Nodes stay registered (their leases simply stop being renewed). */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
    await this.running;
    for (const registration of this.registrations) registration.remove();
    if (this.ownInformers) await this.informers.stop();
    await Promise.all(this.clients.map((client) => client.close()));
  }

  /**
   * Stops one node's kubelet, as if its process died: its Lease is no longer renewed, its status
   * no longer reported, and its pods no longer updated (deleted ones stay Terminating). The Node
   * stays registered; the node lifecycle controller notices once the grace period has passed.
   */
  stopNode(name: string): void {
    if (!this.kubelets.has(name)) throw new Error(`no fake node named ${name}`);
    this.stopped.add(name);
  }

  /** Starts a stopped kubelet again: it reports status and renews its Lease, and syncs its pods. */
  restartNode(name: string): void {
    const kubelet = this.kubelets.get(name);
    if (!kubelet) throw new Error(`no fake node named ${name}`);
    if (!this.stopped.delete(name)) return;
    this.run(`${name}: lease renewal`, () => kubelet.lease.renew(), true);
    this.run(`${name}: status report`, () => kubelet.reportStatus(), true);
    for (const pod of podsOnNode(this.pods, name)) this.controller.enqueue(pod);
  }

  private async registerWithRetry(kubelet: FakeKubelet): Promise<void> {
    for (;;) {
      try {
        await kubelet.register();
        break;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        console.error(`fake node ${kubelet.name}: registration failed: ${String(error)}`);
        await sleep(RETRY_MS, this.abort.signal);
      }
    }
    // Staggered by registration, so a thousand leases do not all renew in the same instant.
    const leasePeriod = this.options.leaseRenewIntervalMs ?? NODE_LEASE_RENEW_INTERVAL_MS;
    this.every(leasePeriod, kubelet.name, 'lease renewal', () => kubelet.lease.renew());
    this.every(NODE_STATUS_REPORT_FREQUENCY_MS, kubelet.name, 'status report', () => kubelet.reportStatus());
  }

  private onNetworkReady(kubelet: FakeKubelet): void {
    for (const pod of podsOnNode(this.pods, kubelet.name)) kubelet.claimAddress(pod);
    for (const pod of podsOnNode(this.pods, kubelet.name)) this.controller.enqueue(pod);
    // Ready now, with `pods` capped by the CIDR, rather than at the next report.
    if (!this.stopped.has(kubelet.name))
      this.run(`${kubelet.name}: status report`, () => kubelet.reportStatus(), true);
    this.networkReady.add(kubelet.name);
    this.checkAllReady();
  }

  /**
   * One status report at a time per node for changes others made (the report is itself an
   * update); a change seen while one runs may have come after its read of the Node, so another
   * follows.
   */
  private reportSoon(kubelet: FakeKubelet): void {
    if (this.abort.signal.aborted || this.stopped.has(kubelet.name)) return;
    if (this.reporting.has(kubelet.name)) {
      this.reporting.set(kubelet.name, true);
      return;
    }
    this.reporting.set(kubelet.name, false);
    this.run(`${kubelet.name}: status report`, () => kubelet.reportStatus(), false).finally(() => {
      const again = this.reporting.get(kubelet.name);
      this.reporting.delete(kubelet.name);
      if (again) this.reportSoon(kubelet);
    });
  }

  private checkAllReady(): void {
    if (this.networkReady.size === this.kubelets.size) this.allReady?.();
  }

  private async syncPod(key: string) {
    const { namespace, name } = splitKey(key);
    const pod = this.pods.lister.get(namespace, name);
    const nodeName = pod?.spec?.nodeName ?? '';
    if (!pod || this.stopped.has(nodeName)) return undefined;
    return this.kubelets.get(nodeName)?.syncPod(pod);
  }

  /** Runs a node's `task` every `intervalMs` (1 s after a failure) until stopped; skipped while its kubelet is. */
  private every(intervalMs: number, nodeName: string, what: string, task: () => Promise<unknown>): void {
    const tick = (): void => {
      if (this.stopped.has(nodeName)) {
        this.later(intervalMs, tick);
        return;
      }
      this.run(`${nodeName}: ${what}`, task, false).then((ok) =>
        this.later(ok ? intervalMs : RETRY_MS, tick),
      );
    };
    this.later(intervalMs, tick);
  }

  /** Runs `task` once, tracked so that `stop` waits for it; with `retry`, until it succeeds. */
  private run(what: string, task: () => Promise<unknown>, retry: boolean): Promise<boolean> {
    const attempt = task().then(
      () => true,
      (error: unknown) => {
        if (this.abort.signal.aborted) return false;
        console.error(`fake node ${what} failed: ${String(error)}`);
        if (retry) this.later(RETRY_MS, () => this.run(what, task, true));
        return false;
      },
    );
    this.inFlight.add(attempt);
    return attempt.finally(() => this.inFlight.delete(attempt));
  }

  private later(delayMs: number, action: () => void): void {
    if (this.abort.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, delayMs);
    this.timers.add(timer);
  }
}
