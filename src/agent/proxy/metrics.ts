// kube-proxy's metrics (pkg/proxy/metrics), named, helped and bucketed as upstream's, served on
// the agent's /metrics beside the kubelet's.
import { exponentialBuckets, MetricsRegistry } from '../../metrics/index.js';

function linearBuckets(start: number, width: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i * width);
}

/** 0.25 s steps to 1 s, then 1 s to a minute, 5 s to two minutes, 30 s to five (upstream's). */
const NETWORK_PROGRAMMING_BUCKETS = [
  ...linearBuckets(0.25, 0.25, 2),
  ...linearBuckets(1, 1, 59),
  ...linearBuckets(60, 5, 12),
  ...linearBuckets(120, 30, 7),
];
const SYNC_BUCKETS = exponentialBuckets(0.001, 2, 15);

export class ProxyMetrics {
  readonly registry = new MetricsRegistry();
  readonly syncDuration = this.registry.histogram({
    name: 'kubeproxy_sync_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds',
    buckets: SYNC_BUCKETS,
  });
  readonly fullSyncDuration = this.registry.histogram({
    name: 'kubeproxy_sync_full_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds for full resyncs',
    buckets: SYNC_BUCKETS,
  });
  readonly partialSyncDuration = this.registry.histogram({
    name: 'kubeproxy_sync_partial_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds for partial resyncs',
    buckets: SYNC_BUCKETS,
  });
  readonly lastSync = this.registry.gauge({
    name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
    help: 'The last time proxy rules were successfully synced',
  });
  readonly lastQueued = this.registry.gauge({
    name: 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds',
    help: 'The last time a sync of proxy rules was queued',
  });
  readonly networkProgramming = this.registry.histogram({
    name: 'kubeproxy_network_programming_duration_seconds',
    help: 'In Cluster Network Programming Latency in seconds',
    buckets: NETWORK_PROGRAMMING_BUCKETS,
  });
  readonly endpointChanges = this.registry.counter({
    name: 'kubeproxy_sync_proxy_rules_endpoint_changes_total',
    help: 'Cumulative proxy rules Endpoint changes',
  });
  readonly serviceChanges = this.registry.counter({
    name: 'kubeproxy_sync_proxy_rules_service_changes_total',
    help: 'Cumulative proxy rules Service changes',
  });
  readonly restoreFailures = this.registry.counter({
    name: 'kubeproxy_sync_proxy_rules_iptables_restore_failures_total',
    help: 'Cumulative proxy iptables restore failures',
  });
  readonly partialRestoreFailures = this.registry.counter({
    name: 'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total',
    help: 'Cumulative proxy iptables partial restore failures',
  });
  readonly noLocalEndpoints = this.registry.gauge({
    name: 'kubeproxy_sync_proxy_rules_no_local_endpoints_total',
    help: 'Number of services with a Local traffic policy and no endpoints',
    labelNames: ['traffic_policy'],
  });

  render(): string {
    return this.registry.render();
  }
}
