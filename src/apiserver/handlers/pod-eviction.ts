// pods/eviction (pkg/registry/core/pod/storage/eviction.go): deletes a pod unless that would break
// its PodDisruptionBudget. Pods that no longer count (finished, pending, already terminating) go at
// once; otherwise the one budget selecting the pod must allow a disruption, which the eviction
// uses up (disruptionsAllowed - 1, the pod noted in status.disruptedPods) before the delete. A
// refusal is 429 TooManyRequests, which clients such as `kubectl drain` retry.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import { isPodReady, updatePodCondition } from '../../api/pod-conditions.js';
import {
  budgetStatusOf,
  DISRUPTION_BUDGET_CAUSE,
  updateDisruptionAllowedCondition,
} from '../../api/pod-disruption-budgets.js';
import { labelSelectorFromObject } from '../../api/selectors/index.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import type { PodDisruptionBudget } from '../../api/types/policy-v1.generated.js';
import type { AdmissionAttributes } from '../admission/chain.js';
import { sendJson } from '../http/respond.js';
import type { RequestContext } from '../http/types.js';
import { timestamp } from '../registry/object-meta.js';
import type { DeleteOptions, ResourceStore } from '../registry/resource-store.js';
import { badRequest, conflict, forbidden, type Status, StatusError, success } from '../status.js';

export interface PodEvictionDeps {
  readonly budgets: () => ResourceStore;
}

/** Serves one eviction of `namespace/name` (the Eviction body is already read and field-checked). */
export type PodEvictionHandler = (
  ctx: RequestContext,
  pods: ResourceStore,
  namespace: string,
  name: string,
  eviction: KubeObject,
  dryRun: boolean,
) => Promise<void>;

/** MaxDisruptedPodSize: evictions the controller has not yet confirmed, beyond which none are allowed. */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** EvictionsRetry: 20 attempts, 500 ms apart, for conflicting writes. */
const EVICTION_RETRY_STEPS = 20;
const EVICTION_RETRY_DELAY_MS = 500;
const ACCEPTED_VERSIONS = ['policy/v1', 'policy/v1beta1'];
const POD_RESOURCE = { group: '', resource: 'Pod' };
const BUDGET_RESOURCE = { group: 'policy', resource: 'poddisruptionbudget' };
const MULTIPLE_BUDGETS_MESSAGE =
  'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

export function podEvictionHandler(deps: PodEvictionDeps): PodEvictionHandler {
  return async (ctx, pods, namespace, name, eviction, dryRun) => {
    checkEvictionType(eviction);
    const attributes: AdmissionAttributes = {
      operation: 'CREATE',
      resource: pods.info,
      subresource: 'eviction',
      namespace,
      name,
      object: eviction,
      user: ctx.user,
      dryRun,
      warnings: [],
    };
    await pods.admissionChain?.admit(attributes);
    if ((eviction.metadata?.name ?? '') !== name)
      throw badRequest('name in URL does not match name in Eviction object');
    const options = evictionDeleteOptions(eviction, dryRun);
    await pods.admissionChain?.validate(attributes);
    const outcome = await new Eviction(pods, deps.budgets(), namespace, name, options).run();
    if (outcome === 'multiple-budgets') {
      const status: Status = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: MULTIPLE_BUDGETS_MESSAGE,
        code: 500,
      };
      return sendJson(ctx.res, 500, status);
    }
    return sendJson(ctx.res, 201, { ...success(), code: 201 });
  };
}

/** The Eviction kinds the endpoint accepts: policy/v1 and policy/v1beta1. */
function checkEvictionType(eviction: KubeObject): void {
  const { apiVersion, kind } = eviction;
  if (apiVersion !== undefined && !ACCEPTED_VERSIONS.includes(apiVersion)) {
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (policy/v1)`,
    );
  }
  if (kind !== undefined && kind !== 'Eviction') {
    throw badRequest(`the kind in the data (${kind}) does not match the expected kind (Eviction)`);
  }
}

/** The Eviction's deleteOptions, with the request's dryRun merged in (propagateDryRun). */
export function evictionDeleteOptions(eviction: KubeObject, queryDryRun: boolean): DeleteOptions {
  const given = (eviction.deleteOptions ?? {}) as {
    gracePeriodSeconds?: number | null;
    preconditions?: { uid?: string | null; resourceVersion?: string | null } | null;
    propagationPolicy?: string | null;
    orphanDependents?: boolean | null;
    dryRun?: string[] | null;
  };
  const bodyDryRun = given.dryRun ?? [];
  for (const value of bodyDryRun) {
    if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  }
  let policy = given.propagationPolicy ?? undefined;
  if (policy === undefined && typeof given.orphanDependents === 'boolean')
    policy = given.orphanDependents ? 'Orphan' : 'Background';
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    throw badRequest(
      `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (given.preconditions?.uid) preconditions.uid = given.preconditions.uid;
  if (given.preconditions?.resourceVersion)
    preconditions.resourceVersion = given.preconditions.resourceVersion;
  return {
    ...(typeof given.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: given.gracePeriodSeconds } : {}),
    ...(policy !== undefined ? { propagationPolicy: policy as DeleteOptions['propagationPolicy'] } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
    dryRun: queryDryRun || bodyDryRun.length > 0,
  };
}

/** One eviction request's work: the PDB-free path, the budget check, the delete. */
class Eviction {
  constructor(
    private readonly pods: ResourceStore,
    private readonly budgets: ResourceStore,
    private readonly namespace: string,
    private readonly name: string,
    private readonly options: DeleteOptions,
  ) {}

  async run(): Promise<'evicted' | 'multiple-budgets'> {
    const pod = await this.deleteIfBudgetsDoNotApply();
    if (pod === undefined) return 'evicted';
    const matching = await this.budgetsOf(pod);
    if (matching.length > 1) return 'multiple-budgets';
    const budget = matching[0];
    let pinToPod = false;
    if (budget) {
      const status = budgetStatusOf(budget);
      // An unready pod does not count as healthy: deleting it takes nothing from the budget when
      // the policy says so, or when the budget is met without it.
      const alwaysAllow = budget.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow';
      const budgetMet = status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0;
      if (!isPodReady(pod) && (alwaysAllow || budgetMet)) pinToPod = true;
      else await this.checkAndDecrement(budget.metadata?.name ?? '');
    }
    // Pinned to the version read, so a pod turning Ready meanwhile is not deleted unchecked.
    const options = pinToPod ? this.withResourceVersion(pod) : this.options;
    try {
      await this.addConditionAndDelete(options);
    } catch (error) {
      if (pinToPod && isConflictError(error) && !this.options.preconditions?.resourceVersion)
        throw stillProcessing(budget?.metadata?.name ?? '');
      throw error;
    }
    return 'evicted';
  }

  /**
   * Deletes a pod that already disrupts nothing (finished, pending or terminating) and returns
   * undefined; otherwise returns the pod for the budget check. Conflicts are retried unless the
   * caller pinned a resourceVersion.
   */
  private async deleteIfBudgetsDoNotApply(): Promise<Pod | undefined> {
    const retry = !this.options.preconditions?.resourceVersion;
    for (let attempt = 1; ; attempt++) {
      try {
        const pod = (await this.pods.get(this.namespace, this.name)) as Pod;
        if (!canIgnoreBudgets(pod)) return pod;
        // A pending pod could start meanwhile: pin the delete to the version read.
        const options =
          shouldEnforceResourceVersion(pod) && retry ? this.withResourceVersion(pod) : this.options;
        await this.addConditionAndDelete(options);
        return undefined;
      } catch (error) {
        if (!retry || !isConflictError(error) || attempt >= EVICTION_RETRY_STEPS) throw error;
        await sleep(EVICTION_RETRY_DELAY_MS);
      }
    }
  }

  private withResourceVersion(pod: Pod): DeleteOptions {
    const resourceVersion = pod.metadata?.resourceVersion ?? '';
    return { ...this.options, preconditions: { ...this.options.preconditions, resourceVersion } };
  }

  /**
   * The budgets selecting the pod. Unlike the controller's, an empty selector selects nothing
   * here, and an invalid one is skipped.
   */
  private async budgetsOf(pod: Pod): Promise<PodDisruptionBudget[]> {
    const { items } = await this.budgets.list(this.namespace);
    return items
      .map((text) => JSON.parse(text) as PodDisruptionBudget)
      .filter((pdb) => {
        try {
          const selector = labelSelectorFromObject(pdb.spec?.selector);
          return !selector.isEmpty() && selector.matches(pod.metadata?.labels ?? {});
        } catch {
          return false;
        }
      });
  }

  /** Verifies the budget allows a disruption and takes one, in one optimistic write of its status. */
  private async checkAndDecrement(budgetName: string): Promise<void> {
    if (this.options.dryRun) {
      takeDisruption(
        this.name,
        (await this.budgets.get(this.namespace, budgetName)) as PodDisruptionBudget,
        true,
      );
      return;
    }
    await this.budgets.guaranteedUpdate(
      this.namespace,
      budgetName,
      (current) => takeDisruption(this.name, current as PodDisruptionBudget, false) as KubeObject,
      { subresource: 'status' },
    );
  }

  /**
   * addConditionAndDeletePod: marks the pod DisruptionTarget (EvictionByEvictionAPI), checking the
   * caller's preconditions against the latest pod first, then deletes it.
   */
  private async addConditionAndDelete(options: DeleteOptions): Promise<void> {
    let deleteOptions = options;
    if (!options.dryRun) {
      const updated = await this.pods.guaranteedUpdate(
        this.namespace,
        this.name,
        (latest) => {
          const pod = latest as Pod;
          checkPodPreconditions(pod, options.preconditions);
          pod.status ??= {};
          updatePodCondition(
            pod.status,
            {
              type: 'DisruptionTarget',
              status: 'True',
              reason: 'EvictionByEvictionAPI',
              message: 'Eviction API: evicting',
            },
            timestamp(),
          );
          return pod as KubeObject;
        },
        { subresource: 'status' },
      );
      // Our own status write moved the version the caller pinned.
      if (options.preconditions?.resourceVersion) {
        const resourceVersion = updated.metadata?.resourceVersion ?? '';
        deleteOptions = { ...options, preconditions: { ...options.preconditions, resourceVersion } };
      }
    }
    await this.pods.delete(this.namespace, this.name, deleteOptions);
  }
}

/** canIgnorePDB: a finished, pending or terminating pod disrupts nothing more when it goes. */
function canIgnoreBudgets(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    pod.metadata?.deletionTimestamp !== undefined
  );
}

function shouldEnforceResourceVersion(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

function checkPodPreconditions(pod: Pod, preconditions: DeleteOptions['preconditions']): void {
  const name = pod.metadata?.name ?? '';
  const uid = preconditions?.uid;
  if (uid && uid !== pod.metadata?.uid) {
    throw conflict(
      POD_RESOURCE,
      name,
      `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata?.uid ?? ''}). ` +
        'The object might have been deleted and then recreated',
    );
  }
  const resourceVersion = preconditions?.resourceVersion;
  if (resourceVersion && resourceVersion !== pod.metadata?.resourceVersion) {
    throw conflict(
      POD_RESOURCE,
      name,
      `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion ` +
        `in record (${pod.metadata?.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
}

/**
 * checkAndDecrement on one version of the budget: refuses (429, 403) when it allows no
 * disruption, else returns it with one disruption fewer and the pod in disruptedPods (left out in
 * a dry run, which writes nothing).
 */
export function takeDisruption(
  podName: string,
  pdb: PodDisruptionBudget,
  dryRun: boolean,
): PodDisruptionBudget {
  const name = pdb.metadata?.name ?? '';
  const status = budgetStatusOf(pdb);
  if ((status.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0)) throw stillProcessing(name);
  if (status.disruptionsAllowed < 0)
    throw forbidden(BUDGET_RESOURCE, name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw forbidden(
      BUDGET_RESOURCE,
      name,
      'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
  }
  if (status.disruptionsAllowed === 0) {
    throw tooManyRequests(
      `The disruption budget ${name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`,
    );
  }
  status.disruptionsAllowed--;
  const now = timestamp();
  if (status.disruptionsAllowed === 0) updateDisruptionAllowedCondition(status, now);
  if (!dryRun) status.disruptedPods = { ...status.disruptedPods, [podName]: now };
  return { ...pdb, status };
}

function tooManyRequests(cause: string, retryAfterSeconds?: number): StatusError {
  return new StatusError(
    429,
    'TooManyRequests',
    "Cannot evict pod as it would violate the pod's disruption budget.",
    {
      causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: cause }],
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    },
  );
}

/** createTooManyRequestsError: the budget's status lags its spec, or the pod changed under us. */
function stillProcessing(budgetName: string): StatusError {
  return tooManyRequests(`The disruption budget ${budgetName} is still being processed by the server.`, 10);
}

function isConflictError(error: unknown): boolean {
  return error instanceof StatusError && error.code === 409;
}
