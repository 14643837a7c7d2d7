/**
 * The apiserver's request metrics, named as kube-apiserver names them: apiserver_request_total
 * and apiserver_request_duration_seconds (with its buckets), plus the time authorization takes.
 */
import { DEFAULT_BUCKETS, MetricsRegistry } from '../metrics/index.js';

const REQUEST_DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const REQUEST_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

export class RequestMetrics {
  private readonly registry = new MetricsRegistry();
  private readonly total = this.registry.counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...REQUEST_LABELS, 'code'],
  });
  private readonly duration = this.registry.histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: REQUEST_LABELS,
    buckets: REQUEST_DURATION_BUCKETS,
  });
  private readonly authorization = this.registry.histogram({
    name: 'tkube_authorization_duration_seconds',
    help: 'Time spent in authorization decisions (RBAC and privileged groups).',
    buckets: DEFAULT_BUCKETS,
  });

  observe(labels: RequestLabels, code: number, seconds: number): void {
    const values = [
      labels.verb,
      labels.group,
      labels.version,
      labels.resource,
      labels.subresource,
      labels.scope,
      'apiserver',
    ];
    this.duration.observe(values, seconds);
    values.push(String(code));
    this.total.inc(values);
  }

  /** Time spent deciding authorization, to show what it costs per request. */
  observeAuthorization(seconds: number): void {
    this.authorization.observe([], seconds);
  }

  render(): string {
    return this.registry.render();
  }
}
