// The HorizontalPodAutoscaler controller (pkg/controller/podautoscaler/horizontal.go): every
// sync period (15 s, --horizontal-pod-autoscaler-sync-period; the cluster's settings) each HPA reads its target's Scale,
// proposes a replica count per metric from the resource metrics API, normalizes the highest one
// (stabilization, min/max, behavior policies), writes the Scale when it changes, and records
// status, conditions and events with upstream's texts.
import { isDeepStrictEqual } from 'node:util';
import { Quantity } from '../../api/quantity.js';
import { parseLabelSelector } from '../../api/selectors/index.js';
import type { CustomResourceDefinition } from '../../api/types/apiextensions-v1.generated.js';
import type {
  HorizontalPodAutoscaler,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  MetricValueStatus,
} from '../../api/types/autoscaling-v2.generated.js';
import type { Pod } from '../../api/types/core-v1.generated.js';
import { Controller, type SyncResult, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import { rfc3339 } from '../../client/events/time.js';
import { type Lister, objectOf } from '../../client/informers/index.js';
import { CUSTOM_RESOURCE_DEFINITIONS, HPAS, PODS } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import { type HpaConditionType, setCondition } from './conditions.js';
import { type MetricsClient, RestMetricsClient } from './metrics-client.js';
import { DEFAULT_DOWNSCALE_STABILIZATION_MS, type Normalized, ScalingHistory } from './normalization.js';
import { ReplicaCalculator, type ReplicaCalculatorOptions } from './replica-calculator.js';
import { groupOf, ScaleTargets, type TargetScale } from './scale-target.js';
import { SelectorOwnership } from './selector-ownership.js';

const SERVICE_ACCOUNT = 'horizontal-pod-autoscaler';
/** --horizontal-pod-autoscaler-sync-period. */
export const DEFAULT_SYNC_PERIOD_MS = 15_000;
const WORKERS = 5;

export interface HorizontalControllerOptions extends ReplicaCalculatorOptions {
  /** Where readings come from; the resource metrics API through the controller's client by default. */
  readonly metricsClient?: MetricsClient;
  readonly syncPeriodMs?: number;
  readonly downscaleStabilizationMs?: number;
}

/** One metric's outcome: a proposal and its status, or the condition and error upstream reports. */
type MetricOutcome =
  | { readonly ok: true; readonly replicas: number; readonly name: string; readonly status: MetricStatus }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly conditionMessage: string;
      readonly error: string;
    };

export class HorizontalController {
  readonly controller: Controller;
  private readonly hpas: Lister<HorizontalPodAutoscaler>;
  private readonly pods: Lister<Pod>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  private readonly targets: ScaleTargets;
  private readonly calculator: ReplicaCalculator;
  private readonly history: ScalingHistory;
  private readonly ownership = new SelectorOwnership();
  private readonly syncPeriodMs: number;
  private readonly now: () => number;

  constructor(context: ControllerContext, options: HorizontalControllerOptions = {}) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'horizontal-pod-autoscaler');
    this.syncPeriodMs = options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
    this.now = options.now ?? Date.now;
    const hpas = context.informers.informerFor<HorizontalPodAutoscaler>(HPAS);
    this.hpas = hpas.lister;
    const pods = context.informers.informerFor<Pod>(PODS);
    this.pods = pods.lister;
    this.targets = new ScaleTargets(
      this.client,
      context.informers.listerFor<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS),
    );
    this.calculator = new ReplicaCalculator(
      options.metricsClient ?? new RestMetricsClient(this.client),
      (namespace, selector) => this.pods.list(namespace, selector),
      options,
    );
    this.history = new ScalingHistory(
      options.downscaleStabilizationMs ?? DEFAULT_DOWNSCALE_STABILIZATION_MS,
      this.now,
    );
    // Upstream queues every HPA at the sync period (a fixed-interval rate limiter), new or changed alike.
    const hpaEvents = hpas.addEventHandler({
      onAdd: (hpa) => this.enqueue(hpa),
      onUpdate: (_old, hpa) => this.enqueue(hpa),
      onDelete: (hpa) => this.ownership.forget(keyOf(objectOf(hpa))),
    });
    this.controller = new Controller({
      name: 'horizontal-pod-autoscaler',
      sync: (key) => this.sync(key),
      workers: WORKERS,
      maxRetries: Number.POSITIVE_INFINITY,
      waitFor: [hpaEvents, pods.addEventHandler({})],
    });
  }

  private enqueue(hpa: HorizontalPodAutoscaler): void {
    const key = keyOf(hpa);
    this.ownership.register(key);
    this.controller.enqueueAfter(key, this.syncPeriodMs);
  }

  async sync(key: string): Promise<SyncResult | undefined> {
    const { namespace, name } = splitKey(key);
    const hpa = this.hpas.get(namespace, name);
    if (hpa === undefined) {
      this.history.forget(key);
      this.ownership.forget(key);
      return undefined;
    }
    try {
      await this.reconcile(structuredClone(hpa), key);
    } catch (error) {
      console.error(
        `horizontal-pod-autoscaler: ${key}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return { requeueAfterMs: this.syncPeriodMs };
  }

  /** reconcileAutoscaler. */
  private async reconcile(hpa: HorizontalPodAutoscaler, key: string): Promise<void> {
    const originalStatus = structuredClone(hpa.status);
    const now = rfc3339(this.now());
    const condition = (type: HpaConditionType, status: 'True' | 'False', reason: string, message: string) =>
      setCondition(hpa, type, status, reason, message, now);
    const spec = hpa.spec;
    if (spec === undefined) return;
    const ref = spec.scaleTargetRef;
    const namespace = hpa.metadata?.namespace ?? '';

    let target: TargetScale;
    try {
      target = await this.targets.get(
        namespace,
        ref.name,
        this.targets.mappings(groupOf(ref.apiVersion ?? ''), ref.kind),
      );
    } catch (error) {
      const text = messageOf(error);
      this.recorder.event(hpa, 'Warning', 'FailedGetScale', text);
      condition(
        'AbleToScale',
        'False',
        'FailedGetScale',
        `the HPA controller was unable to get the target's current scale: ${text}`,
      );
      await this.updateStatusIfNeeded(originalStatus, hpa);
      return;
    }
    condition(
      'AbleToScale',
      'True',
      'SucceededGetScale',
      "the HPA controller was able to get the target's current scale",
    );
    const currentReplicas = target.scale.spec?.replicas ?? 0;
    this.history.recordInitial(key, currentReplicas);

    const minReplicas = spec.minReplicas ?? 1;
    const maxReplicas = spec.maxReplicas;
    let desiredReplicas = 0;
    let rescaleReason = '';
    let rescale = true;
    let metricStatuses: MetricStatus[] | undefined;

    if (currentReplicas === 0 && minReplicas !== 0) {
      desiredReplicas = 0;
      rescale = false;
      condition(
        'ScalingActive',
        'False',
        'ScalingDisabled',
        'scaling is disabled since the replica count of the target is zero',
      );
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, target, now);
      metricStatuses = computed.statuses;
      if (computed.replicas === -1) {
        this.setCurrentReplicasInStatus(hpa, currentReplicas);
        await this.updateStatusIfNeeded(originalStatus, hpa);
        this.recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error ?? '');
        return;
      }
      let rescaleMetric = '';
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metric;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      const normalized: Normalized =
        spec.behavior === undefined
          ? this.history.normalize(key, currentReplicas, desiredReplicas, minReplicas, maxReplicas)
          : this.history.normalizeWithBehavior(
              key,
              spec.behavior,
              currentReplicas,
              desiredReplicas,
              minReplicas,
              maxReplicas,
            );
      condition('AbleToScale', 'True', normalized.ableToScale.reason, normalized.ableToScale.message);
      const limited = normalized.scalingLimited;
      condition('ScalingLimited', limited.limited ? 'True' : 'False', limited.reason, limited.message);
      desiredReplicas = normalized.desiredReplicas;
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await this.targets.update(target, desiredReplicas);
      } catch (error) {
        const text = messageOf(error);
        this.recorder.event(
          hpa,
          'Warning',
          'FailedRescale',
          `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${text}`,
        );
        condition(
          'AbleToScale',
          'False',
          'FailedUpdateScale',
          `the HPA controller was unable to update the target scale: ${text}`,
        );
        this.setCurrentReplicasInStatus(hpa, currentReplicas);
        await this.updateStatusIfNeeded(originalStatus, hpa);
        return;
      }
      condition(
        'AbleToScale',
        'True',
        'SucceededRescale',
        `the HPA controller was able to update the target scale to ${desiredReplicas}`,
      );
      this.recorder.event(
        hpa,
        'Normal',
        'SuccessfulRescale',
        `New size: ${desiredReplicas}; reason: ${rescaleReason}`,
      );
      this.history.recordScale(key, spec.behavior, currentReplicas, desiredReplicas);
    } else {
      desiredReplicas = currentReplicas;
    }
    this.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale);
    await this.updateStatusIfNeeded(originalStatus, hpa);
  }

  /** computeReplicasForMetrics: the highest proposal; -1 when every metric (or one, scaling down) failed. */
  private async computeReplicasForMetrics(
    hpa: HorizontalPodAutoscaler,
    target: TargetScale,
    now: string,
  ): Promise<{ replicas: number; metric: string; statuses: MetricStatus[] | undefined; error?: string }> {
    const selector = this.validateSelector(hpa, target.scale.status?.selector ?? '', now);
    if (selector === undefined) return { replicas: -1, metric: '', statuses: undefined };
    const specs = hpa.spec?.metrics ?? [];
    const specReplicas = target.scale.spec?.replicas ?? 0;
    const statuses: MetricStatus[] = [];
    let replicas = 0;
    let metric = '';
    let invalid = 0;
    let firstInvalid: Extract<MetricOutcome, { ok: false }> | undefined;
    for (const spec of specs) {
      const outcome = await this.computeReplicasForMetric(hpa, spec, specReplicas, selector);
      if (!outcome.ok) {
        // A failed metric keeps an empty status in its place, as upstream's zero value.
        statuses.push({ type: '' });
        firstInvalid ??= outcome;
        invalid++;
        continue;
      }
      statuses.push(outcome.status);
      if (replicas === 0 || outcome.replicas > replicas) {
        replicas = outcome.replicas;
        metric = outcome.name;
      }
    }
    const error =
      firstInvalid === undefined
        ? undefined
        : `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstInvalid.error}`;
    if (invalid >= specs.length || (invalid > 0 && replicas < specReplicas)) {
      if (firstInvalid !== undefined) {
        setCondition(hpa, 'ScalingActive', 'False', firstInvalid.reason, firstInvalid.conditionMessage, now);
      }
      return { replicas: -1, metric: '', statuses, error };
    }
    setCondition(
      hpa,
      'ScalingActive',
      'True',
      'ValidMetricFound',
      `the HPA was able to successfully calculate a replica count from ${metric}`,
      now,
    );
    return { replicas, metric, statuses, error };
  }

  /** validateAndParseSelector: a selector is required, must parse, and its pods must have no other HPA. */
  private validateSelector(hpa: HorizontalPodAutoscaler, selector: string, now: string): string | undefined {
    const fail = (eventReason: string, eventMessage: string, conditionMessage: string): undefined => {
      this.recorder.event(hpa, 'Warning', eventReason, eventMessage);
      const reason = eventReason === 'SelectorRequired' ? 'InvalidSelector' : eventReason;
      setCondition(hpa, 'ScalingActive', 'False', reason, conditionMessage, now);
      return undefined;
    };
    if (selector === '') {
      return fail('SelectorRequired', 'selector is required', "the HPA target's scale is missing a selector");
    }
    let parsed: ReturnType<typeof parseLabelSelector>;
    try {
      parsed = parseLabelSelector(selector);
    } catch (error) {
      const text = `couldn't convert selector into a corresponding internal selector object: ${messageOf(error)}`;
      return fail('InvalidSelector', text, text);
    }
    const key = keyOf(hpa);
    this.ownership.update(key, parsed);
    const pods = this.pods.list(hpa.metadata?.namespace ?? '', parsed);
    const owners = this.ownership.ownersOf(pods);
    if (owners.length > 1) {
      const text = `pods by selector ${selector} are controlled by multiple HPAs: [${owners.join(' ')}]`;
      return fail('AmbiguousSelector', text, text);
    }
    return selector;
  }

  /** computeReplicasForMetric for the resource metrics tkube serves. */
  private async computeReplicasForMetric(
    hpa: HorizontalPodAutoscaler,
    spec: MetricSpec,
    specReplicas: number,
    selector: string,
  ): Promise<MetricOutcome> {
    const namespace = hpa.metadata?.namespace ?? '';
    const failed = (reason: string, inner: string, outer: string): MetricOutcome => {
      this.recorder.event(hpa, 'Warning', reason, inner);
      return {
        ok: false,
        reason,
        conditionMessage: `the HPA was unable to compute the replica count: ${inner}`,
        error: outer,
      };
    };
    // A whole pod's resource or one container's: the same proposal, named and reported apart.
    const source =
      spec.type === 'Resource'
        ? spec.resource
        : spec.type === 'ContainerResource'
          ? spec.containerResource
          : undefined;
    if (source !== undefined) {
      const container = spec.type === 'ContainerResource' ? spec.containerResource?.container : undefined;
      try {
        const result = await this.resourceProposal(
          specReplicas,
          source.target,
          source.name,
          namespace,
          container ?? '',
          selector,
          container !== undefined,
        );
        return {
          ok: true,
          replicas: result.replicas,
          name: result.name,
          status:
            container === undefined
              ? { type: 'Resource', resource: { name: source.name, current: result.current } }
              : {
                  type: 'ContainerResource',
                  containerResource: { name: source.name, container, current: result.current },
                },
        };
      } catch (error) {
        const text = messageOf(error);
        return container === undefined
          ? failed(
              'FailedGetResourceMetric',
              text,
              `failed to get ${source.name} resource metric value: ${text}`,
            )
          : failed(
              'FailedGetContainerResourceMetric',
              text,
              `failed to get ${container} container metric value: ${text}`,
            );
      }
    }
    // The custom and external metrics APIs have no server in tkube: these sources cannot be read.
    const unserved: Record<string, [reason: string, api: string]> = {
      Pods: ['FailedGetPodsMetric', 'custom metrics API'],
      Object: ['FailedGetObjectMetric', 'custom metrics API'],
      External: ['FailedGetExternalMetric', 'external metrics API'],
    };
    const entry = unserved[spec.type];
    if (entry !== undefined) {
      const text = `unable to fetch metrics from ${entry[1]}: tkube serves no ${entry[1]}`;
      return failed(entry[0], text, text);
    }
    const text = `unknown metric source type "${spec.type}"`;
    return failed('InvalidMetricSourceType', text, text);
  }

  /** computeStatusForResourceMetricGeneric. */
  private async resourceProposal(
    specReplicas: number,
    target: MetricTarget,
    resource: string,
    namespace: string,
    container: string,
    selector: string,
    isContainer: boolean,
  ): Promise<{ replicas: number; name: string; current: MetricValueStatus }> {
    const query = { resource, namespace, selector, container };
    if (target.averageValue !== undefined) {
      const targetUsage = Number(Quantity.fromJson(target.averageValue).milliValue());
      let result: Awaited<ReturnType<ReplicaCalculator['getRawResourceReplicas']>>;
      try {
        result = await this.calculator.getRawResourceReplicas(specReplicas, targetUsage, query);
      } catch (error) {
        throw new Error(`failed to get ${resource} usage: ${messageOf(error)}`);
      }
      return {
        replicas: result.replicas,
        name: `${resource} resource`,
        current: { averageValue: milliQuantity(result.usage) },
      };
    }
    if (target.averageUtilization === undefined) {
      throw new Error(
        'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set',
      );
    }
    let result: Awaited<ReturnType<ReplicaCalculator['getResourceReplicas']>>;
    try {
      result = await this.calculator.getResourceReplicas(specReplicas, target.averageUtilization, query);
    } catch (error) {
      throw new Error(`failed to get ${resource} utilization: ${messageOf(error)}`);
    }
    return {
      replicas: result.replicas,
      name: isContainer
        ? `${resource} container resource utilization (percentage of request)`
        : `${resource} resource utilization (percentage of request)`,
      current: { averageUtilization: result.utilization, averageValue: milliQuantity(result.rawUtilization) },
    };
  }

  /** setCurrentReplicasInStatus: the rest of the status as it was. */
  private setCurrentReplicasInStatus(hpa: HorizontalPodAutoscaler, currentReplicas: number): void {
    this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, hpa.status?.currentMetrics, false);
  }

  /** setStatus: a fresh status keeping lastScaleTime (now when rescaled) and the conditions. */
  private setStatus(
    hpa: HorizontalPodAutoscaler,
    currentReplicas: number,
    desiredReplicas: number,
    metrics: MetricStatus[] | undefined,
    rescaled: boolean,
  ): void {
    const previous = hpa.status;
    hpa.status = {
      currentReplicas,
      desiredReplicas,
      ...(rescaled
        ? { lastScaleTime: rfc3339(this.now()) }
        : previous?.lastScaleTime
          ? { lastScaleTime: previous.lastScaleTime }
          : {}),
      ...(metrics !== undefined && metrics.length > 0 ? { currentMetrics: metrics } : {}),
      ...(previous?.conditions ? { conditions: previous.conditions } : {}),
    };
  }

  private async updateStatusIfNeeded(
    original: HorizontalPodAutoscaler['status'],
    hpa: HorizontalPodAutoscaler,
  ): Promise<void> {
    if (isDeepStrictEqual(original, hpa.status)) return;
    try {
      await this.client.resource<HorizontalPodAutoscaler>(HPAS).updateStatus(hpa);
    } catch (error) {
      this.recorder.event(hpa, 'Warning', 'FailedUpdateStatus', messageOf(error));
      throw new Error(`failed to update status for ${hpa.metadata?.name ?? ''}: ${messageOf(error)}`);
    }
  }
}

function keyOf(hpa: HorizontalPodAutoscaler): string {
  return `${hpa.metadata?.namespace ?? ''}/${hpa.metadata?.name ?? ''}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** resource.NewMilliQuantity(value, DecimalSI) as it prints. */
export function milliQuantity(milli: number): string {
  return Quantity.parse(`${Math.trunc(milli)}m`).canonical();
}

export const horizontalPodAutoscalerController: ControllerDescriptor = {
  name: 'horizontal-pod-autoscaler-controller',
  create: (context) =>
    new HorizontalController(context, {
      syncPeriodMs: context.settings.horizontalPodAutoscalerSyncPeriodMs,
      downscaleStabilizationMs: context.settings.horizontalPodAutoscalerDownscaleStabilizationMs,
    }).controller,
};
