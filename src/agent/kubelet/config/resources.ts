// Resources as the kubelet hands them to the runtime: the pod's cgroup under its QoS class
// (cgroupfs layout) and each container's CPU shares, CFS quota, memory limit and OOM score
// adjustment (pkg/kubelet/cm, pkg/kubelet/kuberuntime/helpers_linux.go, pkg/kubelet/qos).
import { Quantity } from '../../../api/quantity.js';
import type { Container, Pod } from '../../../api/types/core-v1.generated.js';
import type { LinuxContainerResources } from '../cri/types.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const MIN_SHARES = 2;
const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1024;
const QUOTA_PERIOD_US = 100_000;
const MIN_QUOTA_PERIOD_US = 1000;
const GUARANTEED_OOM_SCORE_ADJ = -997;
const BEST_EFFORT_OOM_SCORE_ADJ = 1000;

/** The pod's QoS class: the apiserver records it at creation. */
export function podQos(pod: Pod): QosClass {
  const qos = pod.status?.qosClass;
  return qos === 'Guaranteed' || qos === 'Burstable' ? qos : 'BestEffort';
}

/** `/kubepods/pod<uid>` for Guaranteed pods, `/kubepods/<qos>/pod<uid>` for the others. */
export function podCgroupParent(pod: Pod): string {
  const uid = pod.metadata?.uid ?? '';
  const qos = podQos(pod);
  return qos === 'Guaranteed' ? `/kubepods/pod${uid}` : `/kubepods/${qos.toLowerCase()}/pod${uid}`;
}

export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu === 0) return MIN_SHARES;
  const shares = Math.floor((milliCpu * SHARES_PER_CPU) / 1000);
  return Math.min(Math.max(shares, MIN_SHARES), MAX_SHARES);
}

export function milliCpuToQuota(milliCpu: number, periodUs = QUOTA_PERIOD_US): number {
  if (milliCpu === 0) return 0;
  return Math.max(Math.floor((milliCpu * periodUs) / 1000), MIN_QUOTA_PERIOD_US);
}

function quantity(value: unknown): Quantity | undefined {
  return value === undefined ? undefined : Quantity.tryFromJson(value);
}

function milli(value: unknown): number {
  return Number(quantity(value)?.milliValue() ?? 0n);
}

function bytes(value: unknown): number {
  return Number(quantity(value)?.value() ?? 0n);
}

/**
 * The OOM score adjustment of a container: Guaranteed pods are the last to go, best-effort the
 * first, burstable in between by memory request. Negative values are raised to 0: containerd in
 * a node container cannot set them (no CAP_SYS_RESOURCE) and would clamp them anyway.
 */
export function oomScoreAdj(pod: Pod, container: Container, memoryCapacity: number): number {
  const qos = podQos(pod);
  let score: number;
  if (qos === 'Guaranteed') score = GUARANTEED_OOM_SCORE_ADJ;
  else if (qos === 'BestEffort') score = BEST_EFFORT_OOM_SCORE_ADJ;
  else {
    const request = bytes(container.resources?.requests?.memory);
    score =
      memoryCapacity > 0 ? 1000 - Math.floor((1000 * request) / memoryCapacity) : BEST_EFFORT_OOM_SCORE_ADJ;
    if (score < 1000 + GUARANTEED_OOM_SCORE_ADJ) score = 1000 + GUARANTEED_OOM_SCORE_ADJ;
    if (score === BEST_EFFORT_OOM_SCORE_ADJ) score -= 1;
  }
  return Math.max(score, 0);
}

/** The container's cgroup settings: a missing CPU request defaults to its limit, as the kubelet does. */
export function containerResources(
  pod: Pod,
  container: Container,
  memoryCapacity: number,
): LinuxContainerResources {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  const cpuLimit = milli(limits.cpu);
  const cpuShares = milliCpuToShares(requests.cpu === undefined ? cpuLimit : milli(requests.cpu));
  const memoryLimit = bytes(limits.memory);
  return {
    cpuShares,
    cpuPeriod: QUOTA_PERIOD_US,
    cpuQuota: milliCpuToQuota(cpuLimit),
    ...(memoryLimit > 0 ? { memoryLimitInBytes: memoryLimit } : {}),
    oomScoreAdj: oomScoreAdj(pod, container, memoryCapacity),
  };
}
