// The kubelet's /metrics/resource text from a Summary: upstream's families, [STABLE] help texts,
// families in name order and series in label order, values as client_golang writes floats, each
// sample stamped with its figure's time in ms; families with no figure left out; a Summary that
// failed gives resource_scrape_error 1 alone. And the route on the kubelet's router.
import { describe, expect, it } from 'vitest';
import { createKubeletRouter } from '../../../src/agent/kubelet/server/index.js';
import { renderResourceMetrics } from '../../../src/agent/kubelet/stats/resource-metrics.js';
import type { Summary } from '../../../src/agent/kubelet/stats/summary.js';

const T = '2026-11-28T10:00:00Z';
const MS = Date.parse(T);

const summary: Summary = {
  node: {
    nodeName: 'n1',
    startTime: '2026-11-28T09:00:00Z',
    cpu: { time: T, usageNanoCores: 5e8, usageCoreNanoSeconds: 6_197_005_020_909 },
    memory: { time: T, workingSetBytes: 1_137_475_584 },
  },
  pods: [
    {
      podRef: { name: 'web-1', namespace: 'shop', uid: 'u1' },
      startTime: '2026-11-28T09:30:00Z',
      containers: [
        {
          name: 'nginx',
          startTime: '2026-11-28T09:30:01Z',
          cpu: { time: T, usageCoreNanoSeconds: 44_421_506_699 },
          memory: { time: T, workingSetBytes: 4_403_200 },
        },
        // Started, no stats yet: only its start time.
        { name: 'a"side\\car', startTime: '2026-11-28T09:30:02Z' },
      ],
      cpu: { time: T, usageCoreNanoSeconds: 44_421_506_699 },
      memory: { time: T, workingSetBytes: 4_403_200 },
    },
    {
      podRef: { name: 'dns', namespace: 'kube-system', uid: 'u2' },
      startTime: '2026-11-28T09:00:00Z',
      containers: [
        {
          name: 'coredns',
          startTime: '2026-11-28T09:00:05Z',
          cpu: { time: T, usageCoreNanoSeconds: 27_798_782_029 },
          memory: { time: T, workingSetBytes: 14_065_664 },
        },
      ],
      cpu: { time: T, usageCoreNanoSeconds: 27_798_782_029 },
      memory: { time: T, workingSetBytes: 14_065_664 },
    },
  ],
};

describe('renderResourceMetrics', () => {
  it('renders the Summary as upstream’s /metrics/resource', () => {
    expect(renderResourceMetrics(summary)).toBe(
      [
        '# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds',
        '# TYPE container_cpu_usage_seconds_total counter',
        `container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="dns"} 27.798782029 ${MS}`,
        `container_cpu_usage_seconds_total{container="nginx",namespace="shop",pod="web-1"} 44.421506699 ${MS}`,
        '# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes',
        '# TYPE container_memory_working_set_bytes gauge',
        `container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="dns"} 1.4065664e+07 ${MS}`,
        `container_memory_working_set_bytes{container="nginx",namespace="shop",pod="web-1"} 4.4032e+06 ${MS}`,
        '# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds',
        '# TYPE container_start_time_seconds gauge',
        `container_start_time_seconds{container="a\\"side\\\\car",namespace="shop",pod="web-1"} 1.795858202e+09 1795858202000`,
        `container_start_time_seconds{container="coredns",namespace="kube-system",pod="dns"} 1.795856405e+09 1795856405000`,
        `container_start_time_seconds{container="nginx",namespace="shop",pod="web-1"} 1.795858201e+09 1795858201000`,
        '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds',
        '# TYPE node_cpu_usage_seconds_total counter',
        `node_cpu_usage_seconds_total 6197.005020909 ${MS}`,
        '# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes',
        '# TYPE node_memory_working_set_bytes gauge',
        `node_memory_working_set_bytes 1.137475584e+09 ${MS}`,
        '# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds',
        '# TYPE pod_cpu_usage_seconds_total counter',
        `pod_cpu_usage_seconds_total{namespace="kube-system",pod="dns"} 27.798782029 ${MS}`,
        `pod_cpu_usage_seconds_total{namespace="shop",pod="web-1"} 44.421506699 ${MS}`,
        '# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes',
        '# TYPE pod_memory_working_set_bytes gauge',
        `pod_memory_working_set_bytes{namespace="kube-system",pod="dns"} 1.4065664e+07 ${MS}`,
        `pod_memory_working_set_bytes{namespace="shop",pod="web-1"} 4.4032e+06 ${MS}`,
        '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise',
        '# TYPE resource_scrape_error gauge',
        'resource_scrape_error 0',
        '',
      ].join('\n'),
    );
  });

  it('leaves out families with no figure, and reports a failed Summary', () => {
    const bare = renderResourceMetrics({ node: { nodeName: 'n', startTime: T }, pods: [] });
    expect(bare).not.toContain('node_cpu_usage_seconds_total');
    expect(bare).toMatch(
      /^# HELP resource_scrape_error .*\n# TYPE resource_scrape_error gauge\nresource_scrape_error 0\n$/,
    );
    expect(renderResourceMetrics(undefined)).toMatch(
      /^# HELP resource_scrape_error [^\n]*\n[^\n]*\nresource_scrape_error 1\n$/,
    );
  });
});

describe('the kubelet router', () => {
  it('serves /metrics/resource from the Summary, authorized as nodes/metrics', async () => {
    const router = createKubeletRouter({
      pods: () => [],
      statsSummary: async () => summary,
    } as unknown as Parameters<typeof createKubeletRouter>[0]);
    const match = router.match('GET', '/metrics/resource');
    expect(match.kind).toBe('found');
    if (match.kind !== 'found') return;
    let status = 0;
    let headers: Record<string, string> = {};
    let body = '';
    await match.route.handle!({
      res: {
        writeHead(code: number, h: Record<string, string>) {
          status = code;
          headers = h;
        },
        end(text: string) {
          body = text;
        },
      },
    } as never);
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(body).toBe(renderResourceMetrics(summary));
  });
});
