// How the Job controller sees its pods (pkg/controller/job/job_controller.go, tracking parts):
// which are active, terminating, or finished and still to be counted under the
// `batch.kubernetes.io/job-tracking` finalizer, and the pods it creates from the template —
// with the tracking finalizer and, for Indexed Jobs, the completion index and hostname.
import type { Job } from '../../api/types/batch-v1.generated.js';
import type { EnvVar, Pod, PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import { COMPLETION_INDEX_ANNOTATION, COMPLETION_INDEX_LABEL } from './indexes.js';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** Failures of an index so far, carried by the pod replacing a failed one (backoffLimitPerIndex). */
export const INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count';

export function hasTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER) === true;
}

/** Running or pending, not being deleted. */
export function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

/** Being deleted but not finished yet. */
export function isTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp !== undefined;
}

/**
 * The pod's outcome for counting: Succeeded, Failed (a failed pod, or one deleted before it
 * finished — counted at once whatever the podReplacementPolicy, since tkube's fake kubelet removes a
 * deleted pod without reporting a Failed phase), or undefined while it still runs.
 */
export function finishedAs(pod: Pod): 'Succeeded' | 'Failed' | undefined {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return 'Succeeded';
  if (phase === 'Failed') return 'Failed';
  if (pod.metadata?.deletionTimestamp === undefined) return undefined;
  // A deleted pod with the finalizer is held: the kubelet reports no phase once it is gone.
  return 'Failed';
}

/** The job's podReplacementPolicy: TerminatingOrFailed unless set (Failed with a podFailurePolicy). */
export function podReplacementPolicy(job: Job): 'Failed' | 'TerminatingOrFailed' {
  if (job.spec?.podReplacementPolicy === 'Failed') return 'Failed';
  if (job.spec?.podReplacementPolicy === 'TerminatingOrFailed') return 'TerminatingOrFailed';
  return job.spec?.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
}

/** Container restarts of a pod (restartPolicy OnFailure counts them against backoffLimit). */
export function restartsOf(pod: Pod): number {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].reduce(
    (sum, status) => sum + (status.restartCount ?? 0),
    0,
  );
}

/** The template of a pod for `index` (Indexed Jobs): index annotation, label, env and hostname. */
export function templateForIndex(job: Job, index: number, failures: number): PodTemplateSpec {
  const template = structuredClone(job.spec?.template ?? {});
  const text = String(index);
  template.metadata = {
    ...template.metadata,
    annotations: {
      ...template.metadata?.annotations,
      [COMPLETION_INDEX_ANNOTATION]: text,
      ...(job.spec?.backoffLimitPerIndex !== undefined
        ? { [INDEX_FAILURE_COUNT_ANNOTATION]: String(failures) }
        : {}),
    },
    labels: { ...template.metadata?.labels, [COMPLETION_INDEX_LABEL]: text },
  };
  const spec = template.spec ?? { containers: [] };
  spec.hostname = `${job.metadata?.name}-${index}`;
  const env: EnvVar = {
    name: 'JOB_COMPLETION_INDEX',
    valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']` } },
  };
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    if (container.env?.some((e) => e.name === env.name)) continue;
    container.env = [...(container.env ?? []), env];
  }
  template.spec = spec;
  return template;
}

/** The template with the tracking finalizer added. */
export function withTrackingFinalizer(template: PodTemplateSpec): PodTemplateSpec {
  const finalizers = template.metadata?.finalizers ?? [];
  return {
    ...template,
    metadata: {
      ...template.metadata,
      finalizers: finalizers.includes(JOB_TRACKING_FINALIZER)
        ? finalizers
        : [...finalizers, JOB_TRACKING_FINALIZER],
    },
  };
}
