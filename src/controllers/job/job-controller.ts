// The Job controller (pkg/controller/job/job_controller.go): runs a Job's pods to completion.
// Pods carry the `batch.kubernetes.io/job-tracking` finalizer; a finished pod is first recorded
// in status.uncountedTerminatedPods, then its finalizer is removed, then it moves into the
// succeeded/failed counters — so a controller restart at any step neither loses nor double-counts
// it. Indexed Jobs keep one pod per index; backoffLimit, backoffLimitPerIndex, the pod failure
// policy and activeDeadlineSeconds fail a Job (FailureTarget, then Failed once its pods are gone),
// completions and the success policy complete it (SuccessCriteriaMet, then Complete).

import { isPodReady } from '../../api/pod-conditions.js';
import { type LabelSelector, labelSelectorFromObject } from '../../api/selectors/index.js';
import type { Job, JobStatus } from '../../api/types/batch-v1.generated.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { Controller, keyOf, objectOf, type SyncResult, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import { JOBS, PODS } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { ApiObject, ResourceClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor, RunnableController } from '../context.js';
import {
  adoptionPatch,
  claimObjects,
  recheckDeletionTimestamp,
  releasePatch,
} from '../controller-utils/controller-ref-manager.js';
import { ControllerExpectations } from '../controller-utils/expectations.js';
import { controllerRefOf, newControllerRef } from '../controller-utils/owner-references.js';
import { messageOf, podFromTemplate } from '../controller-utils/pod-control.js';
import { completionIndexOf, formatIndexes, parseIndexes } from './indexes.js';
import {
  BACKOFF_LIMIT_EXCEEDED,
  DEADLINE_EXCEEDED,
  isFinished,
  MAX_FAILED_INDEXES_EXCEEDED,
  recordedVerdict,
  setCondition,
  successVerdict,
} from './job-conditions.js';
import {
  finishedAs,
  hasTrackingFinalizer,
  INDEX_FAILURE_COUNT_ANNOTATION,
  isActive,
  isTerminating,
  JOB_TRACKING_FINALIZER,
  restartsOf,
  templateForIndex,
  withTrackingFinalizer,
} from './job-pods.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { planPods } from './pod-plan.js';

const SERVICE_ACCOUNT = 'job-controller';
const JOB_KIND = { apiVersion: 'batch/v1', kind: 'Job' };
/** The value of spec.managedBy this controller serves (absent means it too). */
const MANAGED_BY = 'kubernetes.io/job-controller';
/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;
/** Queue keys of pods whose Job is gone carry this prefix (Job keys never contain a colon). */
const ORPHAN_POD_KEY = 'orphan-pod:';
/** --concurrent-job-syncs. */
const WORKERS = 5;

export interface JobControllerOptions {
  readonly now?: () => number;
  readonly backoffBaseMs?: number;
}

/** Failures since the last success, and when the last one was seen (the in-memory backoff record). */
interface BackoffRecord {
  failures: number;
  lastFailureMs: number;
}

/** The delay before a replacement pod after `failures` consecutive failures. */
export function recreationDelayMs(failures: number, baseMs = POD_FAILURE_BACKOFF_MS): number {
  if (failures <= 0) return 0;
  return Math.min(baseMs * 2 ** (failures - 1), MAX_POD_FAILURE_BACKOFF_MS);
}

export class JobController implements RunnableController {
  readonly controller: Controller;
  private readonly jobs: Lister<Job>;
  private readonly podLister: Lister<Pod>;
  private readonly jobClient: ResourceClient<Job>;
  private readonly podClient: ResourceClient<Pod>;
  private readonly events: EventRecorder;
  private readonly expectations: ControllerExpectations;
  /** Pods whose finalizer this controller removed, until the informer shows it gone (finalizerExpectations). */
  private readonly finalizerRemoved = new Set<string>();
  private readonly backoff = new Map<string, BackoffRecord>();
  private readonly now: () => number;
  private readonly backoffBaseMs: number;

  constructor(context: ControllerContext, options: JobControllerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.backoffBaseMs = options.backoffBaseMs ?? POD_FAILURE_BACKOFF_MS;
    this.expectations = new ControllerExpectations(this.now);
    const client = context.clientFor(SERVICE_ACCOUNT);
    this.jobClient = client.resource<Job>(JOBS);
    this.podClient = client.resource<Pod>(PODS);
    this.events = context.recorderFor(SERVICE_ACCOUNT, 'job-controller');
    const jobs = context.informers.informerFor<Job>(JOBS);
    const pods = context.informers.informerFor<Pod>(PODS);
    this.jobs = jobs.lister;
    this.podLister = pods.lister;
    const podRegistration = pods.addEventHandler({
      onAdd: (pod) => this.podChanged(pod, 'add'),
      onUpdate: (_old, pod) => this.podChanged(pod, 'update'),
      onDelete: (pod) => this.podChanged(objectOf(pod), 'delete'),
    });
    this.controller = new Controller({
      name: 'job',
      workers: WORKERS,
      sync: (key) => this.sync(key),
      waitFor: [podRegistration],
    });
    this.controller.watch(jobs);
  }

  /** An event about the object, named with its kind (cached objects need not carry it). */
  private recordEvent(object: ApiObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.event({ ...object, ...JOB_KIND }, type, reason, message);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private podChanged(pod: Pod, change: 'add' | 'update' | 'delete'): void {
    const uid = pod.metadata?.uid ?? '';
    if (change === 'delete' || !hasTrackingFinalizer(pod)) this.finalizerRemoved.delete(uid);
    const reference = controllerRefOf(pod);
    if (reference === undefined && change !== 'delete') {
      // An orphan: wake every Job whose selector matches it, which may adopt it (upstream's updatePod).
      for (const job of this.selecting(pod)) this.controller.enqueueKey(keyOf(job));
    }
    const job =
      reference?.kind === 'Job' ? this.jobs.get(pod.metadata?.namespace ?? '', reference.name) : undefined;
    if (job === undefined || job.metadata?.uid !== reference?.uid) {
      // Its Job is gone (deleted in the background): nothing will count it, so let it go.
      if (change !== 'delete' && hasTrackingFinalizer(pod))
        this.controller.enqueueKey(`${ORPHAN_POD_KEY}${keyOf(pod)}`);
      return;
    }
    const key = keyOf(job);
    if (change === 'add') this.expectations.creationObserved(key);
    this.controller.enqueueKey(key);
  }

  /** The Jobs whose selectors match an orphan pod's labels. */
  private selecting(pod: Pod): Job[] {
    return this.jobs.list(pod.metadata?.namespace ?? '').filter((job) => {
      try {
        const selector = labelSelectorFromObject(job.spec?.selector);
        return !selector.isEmpty() && selector.matches(pod.metadata?.labels ?? {});
      } catch {
        return false;
      }
    });
  }

  async sync(key: string): Promise<SyncResult | undefined> {
    if (key.startsWith(ORPHAN_POD_KEY)) {
      await this.releaseOrphanPod(key.slice(ORPHAN_POD_KEY.length));
      return undefined;
    }
    const { namespace, name } = splitKey(key);
    const job = this.jobs.get(namespace, name);
    if (!job) {
      this.expectations.delete(key);
      this.forgetBackoff(key);
      return undefined;
    }
    const managedBy = job.spec?.managedBy;
    if (managedBy !== undefined && managedBy !== MANAGED_BY) return undefined;
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromObject(job.spec?.selector);
    } catch {
      // Validation refuses such a Job: nothing to do until it is fixed.
      return undefined;
    }
    const candidates = this.podLister
      .list(namespace)
      .filter((pod) => !this.finalizerRemoved.has(pod.metadata?.uid ?? ''));
    const pods = await this.claimPods(job, selector, candidates);
    if (job.metadata?.deletionTimestamp !== undefined || (isFinished(job) && !hasUncounted(job))) {
      // Nothing more to count: let any pods still held go.
      await this.removeFinalizers(pods.filter(hasTrackingFinalizer));
      return undefined;
    }
    if (!this.expectations.satisfied(key)) return undefined;
    return await this.syncJob(key, job, pods);
  }

  private async syncJob(key: string, job: Job, pods: Pod[]): Promise<SyncResult | undefined> {
    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const spec = job.spec ?? { template: {} };
    const indexed = spec.completionMode === 'Indexed';
    const completions = spec.completions;
    const status: JobStatus = structuredClone(job.status ?? {});
    status.conditions ??= [];
    const uncountedSucceeded = new Set(status.uncountedTerminatedPods?.succeeded ?? []);
    const uncountedFailed = new Set(status.uncountedTerminatedPods?.failed ?? []);
    const completed = parseIndexes(status.completedIndexes, completions ?? 0);
    const failedIndexes = parseIndexes(status.failedIndexes, completions ?? 0);
    const events: Array<[type: 'Normal' | 'Warning', reason: string, message: string]> = [];
    let verdict = recordedVerdict(job);
    // With backoffLimitPerIndex each index backs off on its own failures, else the whole Job.
    const perIndex = indexed && spec.backoffLimitPerIndex !== undefined;
    const recordKey = (index: number | undefined): string =>
      perIndex && index !== undefined ? `${key}#${index}` : key;

    // 1. Record newly finished pods as uncounted (and their indexes), judging failures by the policy.
    const finishedPods: Pod[] = [];
    for (const pod of pods) {
      if (!hasTrackingFinalizer(pod)) continue;
      const outcome = finishedAs(pod);
      if (outcome === undefined) continue;
      finishedPods.push(pod);
      const podUid = pod.metadata?.uid ?? '';
      if (uncountedSucceeded.has(podUid) || uncountedFailed.has(podUid)) continue;
      const index = indexed ? completionIndexOf(pod, completions ?? 0) : undefined;
      if (outcome === 'Succeeded') {
        if (indexed && (index === undefined || completed.has(index))) continue;
        if (index !== undefined) completed.add(index);
        uncountedSucceeded.add(podUid);
        this.backoff.delete(recordKey(index));
        continue;
      }
      const match =
        pod.status?.phase === 'Failed' ? matchPodFailurePolicy(spec.podFailurePolicy, pod) : undefined;
      if (match?.action === 'Ignore') continue;
      uncountedFailed.add(podUid);
      const record = this.backoff.get(recordKey(index)) ?? { failures: 0, lastFailureMs: 0 };
      record.failures++;
      record.lastFailureMs = nowMs;
      this.backoff.set(recordKey(index), record);
      if (match?.action === 'FailJob' && !verdict) {
        verdict = { type: 'FailureTarget', reason: 'PodFailurePolicy', message: match.message ?? '' };
      }
      if (index !== undefined && spec.backoffLimitPerIndex !== undefined && !completed.has(index)) {
        const failures = Number(pod.metadata?.annotations?.[INDEX_FAILURE_COUNT_ANNOTATION] ?? '0') + 1;
        if (match?.action === 'FailIndex' || failures > spec.backoffLimitPerIndex) failedIndexes.add(index);
      }
    }

    const active = pods.filter(isActive);
    const succeeded = (status.succeeded ?? 0) + uncountedSucceeded.size;
    const failed = (status.failed ?? 0) + uncountedFailed.size;
    const suspended = spec.suspend === true;

    // 2. Suspension and resumption.
    // Pods deleted for a suspension are no reason to hold the resumed Job back.
    if (suspended) this.forgetBackoff(key);
    if (suspended && !verdict) {
      if (setCondition(status.conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
        events.push(['Normal', 'Suspended', 'Job suspended']);
      }
    } else if (!suspended && status.conditions.some((c) => c.type === 'Suspended' && c.status === 'True')) {
      setCondition(status.conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now);
      events.push(['Normal', 'Resumed', 'Job resumed']);
      // The deadline counts from the resumption.
      status.startTime = now;
    }
    if (!suspended && status.startTime === undefined) status.startTime = now;

    // 3. The verdict: failure first, then success.
    let requeueAfterMs: number | undefined;
    if (!verdict) {
      const restarts =
        spec.template.spec?.restartPolicy === 'OnFailure' ? active.reduce((s, p) => s + restartsOf(p), 0) : 0;
      const deadline = spec.activeDeadlineSeconds;
      const startedMs = status.startTime ? Date.parse(status.startTime) : Number.NaN;
      if (spec.backoffLimitPerIndex === undefined && failed + restarts > (spec.backoffLimit ?? 6)) {
        verdict = BACKOFF_LIMIT_EXCEEDED;
      } else if (deadline !== undefined && !suspended && !Number.isNaN(startedMs)) {
        const remaining = startedMs + deadline * 1000 - nowMs;
        if (remaining <= 0) verdict = DEADLINE_EXCEEDED;
        else requeueAfterMs = remaining;
      }
      if (!verdict && spec.maxFailedIndexes !== undefined && failedIndexes.size > spec.maxFailedIndexes) {
        verdict = MAX_FAILED_INDEXES_EXCEEDED;
      }
      if (!verdict) verdict = successVerdict(job, completed, failedIndexes, succeeded, active.length);
    }
    if (verdict && !status.conditions.some((c) => c.type === verdict?.type && c.status === 'True')) {
      setCondition(status.conditions, verdict.type, 'True', verdict.reason, verdict.message, now);
    }

    // 4. Pods: none once decided or suspended; else up to parallelism, after the backoff delay.
    const deletions: Pod[] = [];
    const creations: Array<{ index: number | undefined; failures: number }> = [];
    if (verdict || suspended) {
      deletions.push(...active);
    } else {
      const plan = planPods(job, active, pods, completed, failedIndexes, succeeded);
      deletions.push(...plan.excess);
      for (const wanted of plan.wanted) {
        const record = this.backoff.get(recordKey(wanted.index));
        const wait = record
          ? record.lastFailureMs + recreationDelayMs(record.failures, this.backoffBaseMs) - nowMs
          : 0;
        if (wait > 0) requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
        else creations.push(wanted);
      }
    }

    // 5. Write the uncounted pods (and conditions) first, then release their finalizers.
    status.completedIndexes = indexed && completed.size > 0 ? formatIndexes(completed) : undefined;
    if (spec.backoffLimitPerIndex !== undefined) status.failedIndexes = formatIndexes(failedIndexes);
    status.uncountedTerminatedPods = { succeeded: [...uncountedSucceeded], failed: [...uncountedFailed] };
    status.active = active.length;
    status.ready = active.filter(isPodReady).length;
    status.terminating = pods.filter(isTerminating).length;
    status.succeeded ??= 0;
    status.failed ??= 0;
    let current = await this.writeStatus(job, status);
    await this.removeFinalizers(finishedPods.filter((pod) => pod.metadata?.uid !== undefined));
    const released = new Set(finishedPods.map((pod) => pod.metadata?.uid ?? ''));
    // 6. Released pods move into the counters; pods long gone (uncounted but absent) too.
    const present = new Set(pods.filter(hasTrackingFinalizer).map((pod) => pod.metadata?.uid ?? ''));
    const movable = (uid: string): boolean => released.has(uid) || !present.has(uid);
    const moveSucceeded = [...uncountedSucceeded].filter(movable);
    const moveFailed = [...uncountedFailed].filter(movable);
    const next: JobStatus = structuredClone(current.status ?? {});
    next.succeeded = (next.succeeded ?? 0) + moveSucceeded.length;
    next.failed = (next.failed ?? 0) + moveFailed.length;
    next.uncountedTerminatedPods = {
      succeeded: [...uncountedSucceeded].filter((uid) => !movable(uid)),
      failed: [...uncountedFailed].filter((uid) => !movable(uid)),
    };

    // 7. Deletions and creations; then the final condition once every pod is done and counted.
    await this.deletePods(job, deletions);
    next.active = active.length - deletions.filter(isActive).length;
    const terminatingLeft = pods.some(isTerminating) || deletions.length > 0;
    const uncountedLeft =
      next.uncountedTerminatedPods.succeeded?.length || next.uncountedTerminatedPods.failed?.length;
    if (verdict && !terminatingLeft && !uncountedLeft && next.active === 0) {
      next.conditions ??= [];
      const final = verdict.type === 'FailureTarget' ? 'Failed' : 'Complete';
      setCondition(next.conditions, final, 'True', verdict.reason, verdict.message, now);
      if (final === 'Complete') {
        next.completionTime = now;
        events.push(['Normal', 'Completed', 'Job completed']);
      } else {
        events.push(['Warning', verdict.reason, verdict.message]);
      }
    }
    current = await this.writeStatus(current, next);
    for (const [type, reason, message] of events) this.recordEvent(current, type, reason, message);
    if (creations.length > 0) await this.createPods(key, current, creations);
    if (verdict && (terminatingLeft || uncountedLeft)) return { requeueAfterMs: 1000 };
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  /**
   * The Job's pods after adopting matching orphans (with the tracking finalizer) and releasing
   * its pods that stopped matching (without it), as upstream's PodControllerRefManager does.
   */
  private claimPods(job: Job, selector: LabelSelector, pods: readonly Pod[]): Promise<Pod[]> {
    const namespace = job.metadata?.namespace ?? '';
    const name = job.metadata?.name ?? '';
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.jobClient.get(namespace, name);
      if (fresh.metadata?.uid !== job.metadata?.uid) {
        throw new Error(
          `original Job ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${job.metadata?.uid}`,
        );
      }
      return fresh;
    });
    const patchPod = async (pod: Pod, patch: unknown): Promise<void> => {
      await this.podClient.patch(namespace, pod.metadata?.name ?? '', 'strategic', patch);
    };
    return claimObjects(pods, {
      owner: job,
      ownerKind: JOB_KIND,
      objectKind: 'Pod',
      selector,
      canAdopt,
      adopt: (pod) => {
        const patch = adoptionPatch(job, JOB_KIND, pod.metadata?.uid ?? '') as { metadata: object };
        return patchPod(pod, { metadata: { ...patch.metadata, finalizers: [JOB_TRACKING_FINALIZER] } });
      },
      release: (pod) => {
        const patch = releasePatch(pod.metadata?.uid ?? '', job.metadata?.uid ?? '') as { metadata: object };
        return patchPod(pod, {
          metadata: { ...patch.metadata, '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] },
        });
      },
    });
  }

  /** Removes the tracking finalizer of a pod whose Job no longer exists (handleOrphanPod). */
  private async releaseOrphanPod(podKey: string): Promise<void> {
    const { namespace, name } = splitKey(podKey);
    const pod = this.podLister.get(namespace, name);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const reference = controllerRefOf(pod);
    if (reference?.kind === 'Job') {
      // The cache may lag behind a new Job: ask the server before letting its pod go.
      try {
        const job = await this.jobClient.get(namespace, reference.name);
        if (job.metadata?.uid === reference.uid) {
          this.controller.enqueueKey(keyOf(job));
          return;
        }
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    await this.removeFinalizers([pod]);
  }

  /** Drops the Job's backoff records (its own and its indexes'). */
  private forgetBackoff(key: string): void {
    for (const recordKey of this.backoff.keys()) {
      if (recordKey === key || recordKey.startsWith(`${key}#`)) this.backoff.delete(recordKey);
    }
  }

  private async writeStatus(job: Job, status: JobStatus): Promise<Job> {
    if (JSON.stringify(job.status ?? {}) === JSON.stringify(status)) return job;
    return await this.jobClient.updateStatus({ ...job, status });
  }

  private async removeFinalizers(pods: Pod[]): Promise<void> {
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } };
    await Promise.all(
      pods.map(async (pod) => {
        const uid = pod.metadata?.uid ?? '';
        // Before the patch: the informer may show the pod without the finalizer before it returns.
        this.finalizerRemoved.add(uid);
        try {
          await this.podClient.patch(
            pod.metadata?.namespace ?? '',
            pod.metadata?.name ?? '',
            'strategic',
            patch,
          );
        } catch (error) {
          if (!isNotFound(error)) {
            this.finalizerRemoved.delete(uid);
            throw error;
          }
        }
      }),
    );
  }

  private async deletePods(job: Job, pods: Pod[]): Promise<void> {
    await Promise.all(
      pods.map(async (pod) => {
        const name = pod.metadata?.name ?? '';
        try {
          await this.podClient.delete(pod.metadata?.namespace ?? '', name);
        } catch (error) {
          if (isNotFound(error)) return;
          this.recordEvent(job, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(error)}`);
          throw error;
        }
        this.recordEvent(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      }),
    );
  }

  private async createPods(
    key: string,
    job: Job,
    wanted: Array<{ index: number | undefined; failures: number }>,
  ): Promise<void> {
    const namespace = job.metadata?.namespace ?? '';
    this.expectations.expectCreations(key, wanted.length);
    const results = await Promise.allSettled(
      wanted.map(async ({ index, failures }) => {
        const template = withTrackingFinalizer(
          index === undefined ? (job.spec?.template ?? {}) : templateForIndex(job, index, failures),
        );
        const pod = podFromTemplate(template, job, newControllerRef(job, JOB_KIND));
        if (index !== undefined)
          pod.metadata = { ...pod.metadata, generateName: `${job.metadata?.name}-${index}-` };
        try {
          const created = await this.podClient.create({ ...pod, metadata: { ...pod.metadata, namespace } });
          this.recordEvent(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
        } catch (error) {
          this.expectations.creationObserved(key);
          this.recordEvent(job, 'Warning', 'FailedCreate', `Error creating: ${messageOf(error)}`);
          throw error;
        }
      }),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
  }
}

function hasUncounted(job: Job): boolean {
  const uncounted = job.status?.uncountedTerminatedPods;
  return (uncounted?.succeeded?.length ?? 0) + (uncounted?.failed?.length ?? 0) > 0;
}

export const jobController: ControllerDescriptor = {
  name: 'job-controller',
  create: (context) => new JobController(context),
};
