/**
 * The apiserver's request metrics in the Prometheus text format, named as kube-apiserver
 * names them: apiserver_request_total and apiserver_request_duration_seconds.
 */
const BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)
    .join(',');
}

export class RequestMetrics {
  private readonly totals = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();
  /** Label texts by a cheap key: rendering them on every request shows in profiles. */
  private readonly labelTexts = new Map<string, { base: string; withCode: Map<number, string> }>();

  observe(labels: RequestLabels, code: number, seconds: number): void {
    const key = `${labels.verb}|${labels.group}|${labels.version}|${labels.resource}|${labels.subresource}|${labels.scope}`;
    let texts = this.labelTexts.get(key);
    if (!texts) {
      texts = { base: labelText({ ...labels, component: 'apiserver' }), withCode: new Map() };
      this.labelTexts.set(key, texts);
    }
    let totalKey = texts.withCode.get(code);
    if (totalKey === undefined) {
      totalKey = labelText({ ...labels, component: 'apiserver', code: String(code) });
      texts.withCode.set(code, totalKey);
    }
    this.totals.set(totalKey, (this.totals.get(totalKey) ?? 0) + 1);
    const durationKey = texts.base;
    let histogram = this.durations.get(durationKey);
    if (!histogram) {
      histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.durations.set(durationKey, histogram);
    }
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) histogram.counts[i]! += 1;
    histogram.sum += seconds;
    histogram.count += 1;
  }

  private authorizationSeconds = 0;
  private authorizations = 0;

  /** Time spent deciding authorization, to show what it costs per request. */
  observeAuthorization(seconds: number): void {
    this.authorizationSeconds += seconds;
    this.authorizations += 1;
  }

  render(): string {
    const lines = [
      '# HELP apiserver_request_total Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      '# TYPE apiserver_request_total counter',
    ];
    for (const [labels, value] of this.totals) lines.push(`apiserver_request_total{${labels}} ${value}`);
    lines.push(
      '# HELP apiserver_request_duration_seconds Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      '# TYPE apiserver_request_duration_seconds histogram',
    );
    for (const [labels, h] of this.durations) {
      BUCKETS.forEach((bound, i) => {
        lines.push(`apiserver_request_duration_seconds_bucket{${labels},le="${bound}"} ${h.counts[i]}`);
      });
      lines.push(`apiserver_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      lines.push(`apiserver_request_duration_seconds_sum{${labels}} ${h.sum}`);
      lines.push(`apiserver_request_duration_seconds_count{${labels}} ${h.count}`);
    }
    lines.push(
      '# HELP tkube_authorization_duration_seconds Time spent in authorization decisions (RBAC and privileged groups).',
      '# TYPE tkube_authorization_duration_seconds summary',
      `tkube_authorization_duration_seconds_sum ${this.authorizationSeconds}`,
      `tkube_authorization_duration_seconds_count ${this.authorizations}`,
    );
    return `${lines.join('\n')}\n`;
  }
}
