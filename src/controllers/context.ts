// What every controller gets from the controller manager: the shared informers (one watch per
// resource for all controllers), a client and an event recorder under the controller's own
// service account, and the cluster's settings.

import type { EventRecorder } from '../client/events/index.js';
import type { SharedInformerFactory } from '../client/informers/index.js';
import type { Client } from '../client/types.js';

export interface ClusterSettings {
  /** `--cluster-cidr`: the pod network. */
  readonly clusterCidr: string;
  /** `--node-cidr-mask-size`. */
  readonly nodeCidrMaskSize: number;
  /** `--root-ca-file`: the cluster CA (PEM) published as `kube-root-ca.crt` and put in token Secrets; '' for none. */
  readonly rootCaPem: string;
  /** `--service-account-private-key-file` (PEM): signs legacy token Secrets; without it the tokens controller idles. */
  readonly serviceAccountPrivateKeyPem?: string;
  /** `--node-monitor-period`: how often the node lifecycle controller checks node health (5 s). */
  readonly nodeMonitorPeriodMs: number;
  /** `--node-monitor-grace-period`: a node whose lease and status go stale this long is Unknown (50 s since 1.32). */
  readonly nodeMonitorGracePeriodMs: number;
  /** `--node-startup-grace-period`: the same for a node that never posted a Ready condition (60 s). */
  readonly nodeStartupGracePeriodMs: number;
  /** `--node-eviction-rate`: nodes per second tainted NoExecute while their zone is healthy (0.1). */
  readonly nodeEvictionRate: number;
  /** `--secondary-node-eviction-rate`: the same while their zone is partially disrupted (0.01). */
  readonly secondaryNodeEvictionRate: number;
  /** `--large-cluster-size-threshold` (50). */
  readonly largeClusterSizeThreshold: number;
  /** `--unhealthy-zone-threshold` (0.55). */
  readonly unhealthyZoneThreshold: number;
  /** `--terminated-pod-gc-threshold` (12500; 0 or less turns terminated-pod GC off). */
  readonly terminatedPodGcThreshold: number;
  /** The pod GC period (20 s) and its quarantine of unknown nodes (40 s): constants upstream, short in tests. */
  readonly podGcPeriodMs: number;
  readonly podGcQuarantineMs: number;
  /** `--max-endpoints-per-slice` (100). */
  readonly maxEndpointsPerSlice: number;
  /** `--cluster-signing-cert-file` / `--cluster-signing-key-file` (PEM): the CA CSRs are signed with; without them csrsigning idles. */
  readonly clusterSigningCertPem?: string;
  readonly clusterSigningKeyPem?: string;
  /** `--cluster-signing-duration`: the longest certificate csrsigning issues (8760h). */
  readonly clusterSigningDurationMs: number;
  /** How often the CSR cleaner looks for old requests: a constant hour upstream, short in tests. */
  readonly csrCleanerPeriodMs: number;
  /** The addresses LoadBalancer services get (`first-last`, part of the node network); none leaves them pending. */
  readonly loadBalancerIpRange?: string;
  /** `--horizontal-pod-autoscaler-sync-period`: how often each HPA is reconciled (15 s). */
  readonly horizontalPodAutoscalerSyncPeriodMs: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization`: the default scale-down window (5 min). */
  readonly horizontalPodAutoscalerDownscaleStabilizationMs: number;
}

export const DEFAULT_CLUSTER_SETTINGS: ClusterSettings = {
  clusterCidr: '10.244.0.0/16',
  nodeCidrMaskSize: 24,
  rootCaPem: '',
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
  terminatedPodGcThreshold: 12_500,
  podGcPeriodMs: 20_000,
  podGcQuarantineMs: 40_000,
  maxEndpointsPerSlice: 100,
  clusterSigningDurationMs: 365 * 24 * 60 * 60 * 1000,
  csrCleanerPeriodMs: 60 * 60 * 1000,
  horizontalPodAutoscalerSyncPeriodMs: 15_000,
  horizontalPodAutoscalerDownscaleStabilizationMs: 5 * 60_000,
};

export interface ControllerContext {
  readonly informers: SharedInformerFactory;
  /** A client acting as `system:serviceaccount:kube-system:<serviceAccount>`. */
  clientFor(serviceAccount: string): Client;
  /**
   * A client under the manager's own identity (`system:kube-controller-manager`), for the
   * controllers Kubernetes runs with its root credentials rather than a service account: the
   * tokens controller, which service-account tokens depend on.
   */
  readonly rootClient: Client;
  /** Events whose source component is `component` (e.g. `node-controller`). */
  recorderFor(serviceAccount: string, component: string): EventRecorder;
  readonly settings: ClusterSettings;
}

/** A controller ready to run: its informers are registered, so the factory can start them. */
export interface RunnableController {
  /** Runs until the signal aborts (after waiting for its caches). */
  run(signal: AbortSignal): Promise<void>;
  /** Resolves once it runs and has worked off what it found at start (see Controller.caughtUp). */
  caughtUp?(): Promise<void>;
}

/** What a controller the cluster is not configured for runs: nothing. */
export const IDLE_CONTROLLER: RunnableController = { run: async () => {} };

/** One controller as the manager knows it: a name, and how to build it (synchronously). */
export interface ControllerDescriptor {
  readonly name: string;
  create(context: ControllerContext): RunnableController;
}
