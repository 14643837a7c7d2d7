// The webhook admission metrics kube-apiserver serves (k8s.io/apiserver/pkg/admission/metrics):
// per-webhook latency, request and rejection counts, and fail-open counts.
import { MetricsRegistry } from '../../../metrics/index.js';

/** `admit` for mutating webhooks, `validate` for validating ones, as upstream labels them. */
export type WebhookStep = 'admit' | 'validate';

/** How a webhook call ended, for the rejection and request counters. */
export type WebhookErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

export class WebhookMetrics {
  private readonly registry = new MetricsRegistry();
  private readonly duration = this.registry.histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25],
  });
  private readonly requests = this.registry.counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
  });
  private readonly rejections = this.registry.counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
  });
  private readonly failOpen = this.registry.counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
    labelNames: ['name', 'type'],
  });

  /** One call: its latency, outcome and (for rejections) why. */
  observe(
    name: string,
    step: WebhookStep,
    operation: string,
    seconds: number,
    outcome: { rejected: boolean; code: number; errorType: WebhookErrorType },
  ): void {
    const rejected = String(outcome.rejected);
    const code = String(Math.min(outcome.code, 600));
    this.duration.observe([name, step, operation, rejected], seconds);
    this.requests.inc([name, step, operation, code, rejected]);
    if (outcome.rejected)
      this.rejections.inc([name, step, operation, outcome.errorType, outcome.code >= 400 ? code : '0']);
  }

  /** A call that failed and was ignored under failurePolicy Ignore. */
  observeFailOpen(name: string, step: WebhookStep): void {
    this.failOpen.inc([name, step]);
  }

  render(): string {
    return this.registry.render();
  }
}
