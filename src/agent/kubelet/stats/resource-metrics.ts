// The kubelet's resource metrics endpoint, /metrics/resource (pkg/kubelet/metrics/collectors/
// resource_metrics.go): the Summary's CPU and memory figures in the Prometheus text format, what
// metrics-server scrapes. Families in name order as client_golang gathers them, series in label
// order, each sample stamped with the time of its figure. A Summary that could not be read gives
// `resource_scrape_error 1` alone.
import { escapeLabelValue, formatNumber } from '../../../metrics/registry.js';
import type { ContainerSummary, CpuStats, MemoryStats, PodSummary, Summary } from './summary.js';

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: { labels: [string, string][]; value: number; timeMs: number }[];
}

const family = (name: string, help: string, type: Family['type']): Family => ({
  name,
  help: `[STABLE] ${help}`,
  type,
  samples: [],
});

const cpuSeconds = (cpu: CpuStats | undefined) =>
  cpu?.usageCoreNanoSeconds === undefined ? undefined : cpu.usageCoreNanoSeconds / 1e9;

function add(
  to: Family,
  labels: [string, string][],
  value: number | undefined,
  time: string | undefined,
): void {
  if (value === undefined || time === undefined) return;
  to.samples.push({ labels, value, timeMs: Date.parse(time) });
}

const containerLabels = (pod: PodSummary, container: ContainerSummary): [string, string][] => [
  ['container', container.name],
  ['namespace', pod.podRef.namespace],
  ['pod', pod.podRef.name],
];

const workingSet = (memory: MemoryStats | undefined) => memory?.workingSetBytes;

/** The Prometheus text of /metrics/resource for a Summary (undefined: it could not be read). */
export function renderResourceMetrics(summary: Summary | undefined): string {
  const containerCpu = family(
    'container_cpu_usage_seconds_total',
    'Cumulative cpu time consumed by the container in core-seconds',
    'counter',
  );
  const containerMemory = family(
    'container_memory_working_set_bytes',
    'Current working set of the container in bytes',
    'gauge',
  );
  const containerStart = family(
    'container_start_time_seconds',
    'Start time of the container since unix epoch in seconds',
    'gauge',
  );
  const nodeCpu = family(
    'node_cpu_usage_seconds_total',
    'Cumulative cpu time consumed by the node in core-seconds',
    'counter',
  );
  const nodeMemory = family(
    'node_memory_working_set_bytes',
    'Current working set of the node in bytes',
    'gauge',
  );
  const podCpu = family(
    'pod_cpu_usage_seconds_total',
    'Cumulative cpu time consumed by the pod in core-seconds',
    'counter',
  );
  const podMemory = family(
    'pod_memory_working_set_bytes',
    'Current working set of the pod in bytes',
    'gauge',
  );
  if (summary) {
    add(nodeCpu, [], cpuSeconds(summary.node.cpu), summary.node.cpu?.time);
    add(nodeMemory, [], workingSet(summary.node.memory), summary.node.memory?.time);
    for (const pod of summary.pods) {
      for (const container of pod.containers) {
        const labels = containerLabels(pod, container);
        add(containerStart, labels, Date.parse(container.startTime) / 1000, container.startTime);
        add(containerCpu, labels, cpuSeconds(container.cpu), container.cpu?.time);
        add(containerMemory, labels, workingSet(container.memory), container.memory?.time);
      }
      const labels: [string, string][] = [
        ['namespace', pod.podRef.namespace],
        ['pod', pod.podRef.name],
      ];
      add(podCpu, labels, cpuSeconds(pod.cpu), pod.cpu?.time);
      add(podMemory, labels, workingSet(pod.memory), pod.memory?.time);
    }
  }
  const lines: string[] = [];
  for (const { name, help, type, samples } of [
    containerCpu,
    containerMemory,
    containerStart,
    nodeCpu,
    nodeMemory,
    podCpu,
    podMemory,
  ]) {
    // client_golang leaves out a family with no samples.
    if (samples.length === 0) continue;
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    const rendered = samples.map(({ labels, value, timeMs }) => {
      const pairs = labels.map(([label, text]) => `${label}="${escapeLabelValue(text)}"`).join(',');
      return { key: labels.map(([, text]) => text).join('\u0000'), pairs, value, timeMs };
    });
    rendered.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const { pairs, value, timeMs } of rendered)
      lines.push(`${name}${pairs === '' ? '' : `{${pairs}}`} ${formatNumber(value)} ${timeMs}`);
  }
  lines.push(
    '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise',
    '# TYPE resource_scrape_error gauge',
    `resource_scrape_error ${summary ? 0 : 1}`,
  );
  return `${lines.join('\n')}\n`;
}
