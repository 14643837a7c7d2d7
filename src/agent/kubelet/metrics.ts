// The kubelet's metrics on its server's /metrics, named, labelled and bucketed as the kubelet's
// (pkg/kubelet/metrics): runtime operations as the instrumented CRI client counts them, pod
// worker syncs, pod and container starts, running pods and containers, PLEG relists.
import { DEFAULT_BUCKETS, exponentialBuckets, MetricsRegistry } from '../../metrics/index.js';

/** Hand-picked, roughly exponential bounds of the kubelet's pod start-up histograms. */
const POD_START_BUCKETS = [
  0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700,
  3600,
];

/** The kind of sync a pod worker ran (kubetypes.SyncPodType). */
export type PodSyncType = 'create' | 'update' | 'sync' | 'kill';

/** The `container_type` label: regular, init (sidecars included) or ephemeral. */
export type ContainerMetricType = 'container' | 'init_container' | 'ephemeral_container';

/** Containers the runtime holds, by the kubelet's state names. */
export interface RuntimeCounts {
  /** Pods with a ready sandbox. */
  readonly runningPods: number;
  /** created / running / exited / unknown. */
  readonly containersByState: ReadonlyMap<string, number>;
}

export class KubeletMetrics {
  private readonly registry = new MetricsRegistry();

  private readonly nodeName = this.registry.gauge({
    name: 'kubelet_node_name',
    help: "The node's name. The count is always 1.",
    labelNames: ['node'],
  });
  private readonly podWorkerDuration = this.registry.histogram({
    name: 'kubelet_pod_worker_duration_seconds',
    help: 'Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync',
    labelNames: ['operation_type'],
    buckets: DEFAULT_BUCKETS,
  });
  private readonly podStartDuration = this.registry.histogram({
    name: 'kubelet_pod_start_duration_seconds',
    help: 'Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run',
    buckets: POD_START_BUCKETS,
  });
  private readonly plegRelistDuration = this.registry.histogram({
    name: 'kubelet_pleg_relist_duration_seconds',
    help: 'Duration in seconds for relisting pods in PLEG.',
    buckets: DEFAULT_BUCKETS,
  });
  private readonly plegLastSeen = this.registry.gauge({
    name: 'kubelet_pleg_last_seen_seconds',
    help: 'Timestamp in seconds when PLEG was last seen active.',
  });
  private readonly runtimeOperations = this.registry.counter({
    name: 'kubelet_runtime_operations_total',
    help: 'Cumulative number of runtime operations by operation type.',
    labelNames: ['operation_type'],
  });
  private readonly runtimeOperationsDuration = this.registry.histogram({
    name: 'kubelet_runtime_operations_duration_seconds',
    help: 'Duration in seconds of runtime operations. Broken down by operation type.',
    labelNames: ['operation_type'],
    buckets: exponentialBuckets(0.005, 2.5, 14),
  });
  private readonly runtimeOperationsErrors = this.registry.counter({
    name: 'kubelet_runtime_operations_errors_total',
    help: 'Cumulative number of runtime operation errors by operation type.',
    labelNames: ['operation_type'],
  });
  private readonly runningPods = this.registry.gauge({
    name: 'kubelet_running_pods',
    help: 'Number of pods that have a running pod sandbox',
  });
  private readonly runningContainers = this.registry.gauge({
    name: 'kubelet_running_containers',
    help: 'Number of containers currently running',
    labelNames: ['container_state'],
  });
  private readonly startedPods = this.registry.counter({
    name: 'kubelet_started_pods_total',
    help: 'Cumulative number of pods started',
  });
  private readonly startedPodsErrors = this.registry.counter({
    name: 'kubelet_started_pods_errors_total',
    help: 'Cumulative number of errors when starting pods',
  });
  private readonly startedContainers = this.registry.counter({
    name: 'kubelet_started_containers_total',
    help: 'Cumulative number of containers started',
    labelNames: ['container_type'],
  });
  private readonly startedContainersErrors = this.registry.counter({
    name: 'kubelet_started_containers_errors_total',
    help: 'Cumulative number of errors when starting containers',
    labelNames: ['container_type', 'code'],
  });

  constructor(node: string, runtimeCounts?: () => RuntimeCounts | undefined) {
    this.nodeName.set([node], 1);
    // Series appear once observed, as the kubelet's do (its vectors start empty too).
    this.registry.onCollect(() => {
      const counts = runtimeCounts?.();
      if (!counts) return;
      this.runningPods.set([], counts.runningPods);
      this.runningContainers.reset();
      for (const [state, count] of counts.containersByState) this.runningContainers.set([state], count);
    });
  }

  /** One CRI call (the instrumented runtime service's recordOperation and recordError). */
  runtimeOperation(operation: string, seconds: number, failed: boolean): void {
    this.runtimeOperations.inc([operation]);
    this.runtimeOperationsDuration.observe([operation], seconds);
    if (failed) this.runtimeOperationsErrors.inc([operation]);
  }

  podWorkerSync(type: PodSyncType, seconds: number): void {
    this.podWorkerDuration.observe([type], seconds);
  }

  /** A pod turned Running for the first time, `seconds` after the kubelet first saw it. */
  podStarted(seconds: number): void {
    this.podStartDuration.observe([], seconds);
  }

  /** A sandbox was created (or failed to be): the kubelet counts these as pod starts. */
  sandboxStart(failed: boolean): void {
    this.startedPods.inc();
    if (failed) this.startedPodsErrors.inc();
  }

  /** A container start was attempted (after its back-off); `errorCode` names why it failed. */
  containerStart(type: ContainerMetricType, errorCode?: string): void {
    this.startedContainers.inc([type]);
    if (errorCode !== undefined) this.startedContainersErrors.inc([type, errorCode]);
  }

  plegRelist(seconds: number, at: Date): void {
    this.plegRelistDuration.observe([], seconds);
    this.plegLastSeen.set([], Math.floor(at.getTime() / 1000));
  }

  /** The Prometheus text of every metric. */
  render(): string {
    return this.registry.render();
  }
}
