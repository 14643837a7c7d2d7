// A pod with everything the scheduler derives from it computed once (framework.PodInfo): its
// requests, non-zero requests for scoring, host ports and parsed affinity terms.
import { hostPortsOf } from '../../api/host-ports.js';
import { podRequests } from '../../api/scheduling/pod-requests.js';
import type { Resource } from '../../api/scheduling/resource.js';
import type { ContainerPort, Pod } from '../../api/types/core-v1.generated.js';
import {
  type AffinityTerm,
  affinityTermsOf,
  type WeightedAffinityTerm,
  weightedAffinityTermsOf,
} from './affinity-term.js';

/** The identity the cache and queue key pods by: the UID, else namespace/name. */
export function podKey(pod: Pod): string {
  const metadata = pod.metadata;
  return metadata?.uid || `${metadata?.namespace ?? ''}/${metadata?.name ?? ''}`;
}

export function podNamespacedName(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** corev1helpers.PodPriority: spec.priority, 0 when unset. */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

const NO_TERMS: readonly never[] = [];

export class PodInfo {
  readonly key: string;
  readonly namespace: string;
  readonly priority: number;
  readonly hostPorts: readonly ContainerPort[];
  requiredAffinityTerms: readonly AffinityTerm[] = NO_TERMS;
  requiredAntiAffinityTerms: readonly AffinityTerm[] = NO_TERMS;
  preferredAffinityTerms: readonly WeightedAffinityTerm[] = NO_TERMS;
  preferredAntiAffinityTerms: readonly WeightedAffinityTerm[] = NO_TERMS;
  /** Why the affinity terms could not be parsed, if they could not. */
  readonly parseError: string | undefined;
  private requestsMemo: Resource | undefined;
  private nonZeroMemo: Resource | undefined;

  /** `sameSpecAs`: a PodInfo of the same pod differing only in spec.nodeName, whose parsing is reused. */
  constructor(
    readonly pod: Pod,
    sameSpecAs?: PodInfo,
  ) {
    this.key = podKey(pod);
    this.namespace = pod.metadata?.namespace ?? '';
    this.priority = podPriority(pod);
    if (sameSpecAs !== undefined) {
      this.hostPorts = sameSpecAs.hostPorts;
      this.requiredAffinityTerms = sameSpecAs.requiredAffinityTerms;
      this.requiredAntiAffinityTerms = sameSpecAs.requiredAntiAffinityTerms;
      this.preferredAffinityTerms = sameSpecAs.preferredAffinityTerms;
      this.preferredAntiAffinityTerms = sameSpecAs.preferredAntiAffinityTerms;
      this.parseError = sameSpecAs.parseError;
      this.requestsMemo = sameSpecAs.requests;
      this.nonZeroMemo = sameSpecAs.nonZeroRequests;
      return;
    }
    this.hostPorts = hostPortsOf(pod);
    let parseError: string | undefined;
    const affinity = pod.spec?.affinity;
    if (affinity?.podAffinity !== undefined || affinity?.podAntiAffinity !== undefined) {
      try {
        this.requiredAffinityTerms = affinityTermsOf(
          pod,
          affinity.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
        );
        this.requiredAntiAffinityTerms = affinityTermsOf(
          pod,
          affinity.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
        );
        this.preferredAffinityTerms = weightedAffinityTermsOf(
          pod,
          affinity.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution,
        );
        this.preferredAntiAffinityTerms = weightedAffinityTermsOf(
          pod,
          affinity.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution,
        );
      } catch (error) {
        parseError = error instanceof Error ? error.message : String(error);
      }
    }
    this.parseError = parseError;
  }

  /** The same pod placed on a node (assumed): parsing and requests are shared. */
  withPod(pod: Pod): PodInfo {
    return new PodInfo(pod, this);
  }

  get name(): string {
    return this.pod.metadata?.name ?? '';
  }

  get labels(): Readonly<Record<string, string>> | undefined {
    return this.pod.metadata?.labels;
  }

  /** Requests with init-container maximum and overhead. */
  get requests(): Resource {
    this.requestsMemo ??= podRequests(this.pod);
    return this.requestsMemo;
  }

  /** Requests with 100m cpu / 200Mi memory for containers that set none (for scoring). */
  get nonZeroRequests(): Resource {
    this.nonZeroMemo ??= podRequests(this.pod, true);
    return this.nonZeroMemo;
  }

  hasAffinity(): boolean {
    const affinity = this.pod.spec?.affinity;
    return affinity?.podAffinity !== undefined || affinity?.podAntiAffinity !== undefined;
  }

  hasRequiredAntiAffinity(): boolean {
    return this.requiredAntiAffinityTerms.length > 0;
  }

  isTerminating(): boolean {
    return this.pod.metadata?.deletionTimestamp !== undefined && this.pod.metadata.deletionTimestamp !== null;
  }
}
