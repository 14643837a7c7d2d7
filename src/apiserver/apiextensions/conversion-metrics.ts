// The conversion webhook metrics kube-apiserver serves (apiextensions-apiserver
// pkg/apiserver/conversion/metrics.go): every webhook call's outcome and latency, and each CRD's
// conversion time between two versions.
import { exponentialBuckets, MetricsRegistry } from '../../metrics/index.js';
import type { ConversionFailureType } from './conversion-webhook.js';

/** One conversion webhook call, as the metrics record it. */
export interface ConversionObservation {
  crdName: string;
  fromVersion: string;
  toVersion: string;
  seconds: number;
  /** Undefined when the call succeeded. */
  failureType?: ConversionFailureType;
}

export class ConversionWebhookMetrics {
  private readonly registry = new MetricsRegistry();
  private readonly requests = this.registry.counter({
    name: 'apiserver_conversion_webhook_request_total',
    help: 'Counter for conversion webhook requests with success/failure and failure error type',
    labelNames: ['result', 'failure_type'],
  });
  private readonly latency = this.registry.histogram({
    name: 'apiserver_conversion_webhook_duration_seconds',
    help: 'Conversion webhook request latency',
    labelNames: ['result', 'failure_type'],
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60],
  });
  private readonly crdDuration = this.registry.histogram({
    name: 'apiserver_crd_conversion_webhook_duration_seconds',
    help: 'CRD webhook conversion duration in seconds',
    labelNames: ['crd_name', 'from_version', 'to_version', 'succeeded'],
    buckets: exponentialBuckets(0.001, 2, 15),
  });

  observe({ crdName, fromVersion, toVersion, seconds, failureType }: ConversionObservation): void {
    const result = failureType === undefined ? 'success' : 'failure';
    this.requests.inc([result, failureType ?? '']);
    this.latency.observe([result, failureType ?? ''], seconds);
    // Upstream records a CRD's conversion only between two different versions.
    if (fromVersion !== toVersion)
      this.crdDuration.observe([crdName, fromVersion, toVersion, String(failureType === undefined)], seconds);
  }

  render(): string {
    return this.registry.render();
  }
}
