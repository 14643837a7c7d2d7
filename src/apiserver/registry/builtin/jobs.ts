import type { KubeObject } from '../../../api/object.js';
import type { Strategy } from '../strategy.js';

interface JobShape {
  metadata?: { name?: string; uid?: string };
  spec?: {
    manualSelector?: boolean;
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string> } };
  };
  status?: unknown;
}

/**
 * Unless `manualSelector` is set, a Job selects its pods by its own uid: the selector and the
 * template labels are generated before validation, as the Job registry strategy does.
 */
export const jobStrategy: Partial<Strategy> = {
  // batch/v1's own field label conversion (pkg/apis/batch/v1/conversion.go).
  unsupportedFieldLabel: (label) => `field label ${JSON.stringify(label)} not supported for Job`,
  prepareForCreate(object: KubeObject) {
    const job = object as JobShape;
    job.status = {};
    if (job.spec?.manualSelector) return;
    const uid = job.metadata?.uid ?? '';
    const name = job.metadata?.name ?? '';
    job.spec ??= {};
    job.spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
    job.spec.template ??= {};
    job.spec.template.metadata ??= {};
    job.spec.template.metadata.labels = {
      ...job.spec.template.metadata.labels,
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    };
  },
};
