// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (k8s.io/apiserver/pkg/
// admission/plugin/webhook: generic/webhook.go, mutating/dispatcher.go, validating/dispatcher.go).
// For each request every configured webhook whose rules select it (exactly, or on another served
// version under matchPolicy Equivalent), whose namespace and object selectors and match conditions
// hold, is sent an AdmissionReview. Mutating webhooks run one after another and their JSONPatch
// responses change the object, those with reinvocationPolicy IfNeeded once more when a later one
// changed it; validating webhooks run at once. A webhook that cannot be called (or answers
// something that is not a valid review) is skipped under failurePolicy Ignore and fails the request
// with upstream's `failed calling webhook` internal error under Fail; a denial answers with the
// webhook's Status. Warnings become Warning headers; audit annotations are dropped, as tkube keeps
// no audit log. Webhook and policy configuration objects are never sent to webhooks.
import type { KubeObject } from '../../../api/object.js';
import type { LabelSelectorObject } from '../../../api/selectors/index.js';
import { type AuthorizeFunction, CelAuthorizer } from '../../cel/library/authz.js';
import { convert, convertibleVersionsOf } from '../../conversion/index.js';
import { applyJsonPatch } from '../../patch/index.js';
import { badRequest, internalError, StatusError, type StatusReason } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import { evaluatePolicy } from '../validating-admission-policy/evaluate.js';
import {
  type MatchRequest,
  matchesNamespaceSelector,
  matchesObjectSelector,
  matchesResourceRules,
  matchRequestOf,
} from '../validating-admission-policy/matching.js';
import { admissionRequest } from '../validating-admission-policy/request-variables.js';
import { callWebhook, type WebhookClientDeps } from './client.js';
import type { Webhook, WebhookConfigurations } from './configurations.js';
import type { WebhookMetrics, WebhookStep } from './metrics.js';
import {
  admissionReview,
  type ReviewResult,
  type ReviewStatus,
  reviewVersion,
  verifyReviewResponse,
} from './review.js';

export interface WebhookAdmissionOptions {
  readonly configurations: WebhookConfigurations;
  readonly namespaces: ObjectLister;
  readonly client: WebhookClientDeps;
  readonly metrics: WebhookMetrics;
  /** Other served versions of a group's resource, for matchPolicy Equivalent. */
  readonly equivalentVersions?: (group: string, resource: string) => readonly string[];
  /** Answers `authorizer` checks in match conditions. */
  readonly authorize?: AuthorizeFunction;
  /**
   * Prunes and defaults an object a webhook patched, as upstream's decoding of the patched object
   * does (a webhook may add a container without its defaults, or fields the schema drops).
   */
  readonly redefault?: (attributes: AdmissionAttributes, object: KubeObject) => void;
}

/** Resources whose writes never reach webhooks (upstream's IsExemptAdmissionConfigurationResource). */
const EXEMPT = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

/** A webhook whose rules selected the request, and the version it is to be called in. */
interface Candidate {
  readonly webhook: Webhook;
  readonly version: string;
}

/** upstream's ErrCallingWebhook: subject to the failure policy. */
class CallingWebhookError extends Error {
  constructor(name: string, reason: string) {
    super(`failed calling webhook "${name}": ${reason}`);
  }
}

/** A denial as upstream's ToStatusErr turns the webhook's Status into the request's error. */
function rejection(name: string, status: ReviewStatus | undefined): StatusError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const code = typeof status?.code === 'number' && status.code >= 400 ? status.code : 400;
  let message: string;
  if (status?.message) message = `${deniedBy}: ${status.message}`;
  else if (status?.reason) message = `${deniedBy}: ${status.reason}`;
  else message = `${deniedBy} without explanation`;
  const details =
    status?.details !== undefined && status.details !== null
      ? (status.details as ConstructorParameters<typeof StatusError>[3])
      : undefined;
  return new StatusError(code, (status?.reason ?? '') as StatusReason, message, details);
}

function isEmptySelector(selector: LabelSelectorObject | undefined): boolean {
  return (
    selector === undefined ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  );
}

/**
 * The object as a webhook called in `version` sees it: converted where the kind's versions differ
 * in shape (autoscaling/v1 and v2), otherwise only its apiVersion changes (custom resources
 * convert by `None` so; a CRD's conversion webhook is not called here).
 */
function inVersion(object: KubeObject | null, group: string, version: string): KubeObject | null {
  if (object === null) return null;
  const apiVersion = group === '' ? version : `${group}/${version}`;
  if (object.apiVersion === apiVersion) return object;
  if (object.kind !== undefined && convertibleVersionsOf(object.kind)?.includes(apiVersion))
    return convert(object, { group, version });
  return { ...object, apiVersion };
}

/** Replaces the contents of `target` with `source`: mutating plugins change the object in place. */
function replaceObject(target: KubeObject, source: KubeObject): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}

export function webhookAdmission(options: WebhookAdmissionOptions, step: WebhookStep): AdmissionPlugin {
  const mutating = step === 'admit';

  // Equivalent versions are tried one by one in matchedVersion, to know which one matched.
  const matchRequest = (attributes: AdmissionAttributes): MatchRequest => matchRequestOf(attributes, []);

  /** The version a webhook's rules select the request in, if any. */
  const matchedVersion = (webhook: Webhook, request: MatchRequest): string | undefined => {
    const rules = webhook.spec.rules;
    if (matchesResourceRules(rules, 'Exact', request)) return request.version;
    if (webhook.matchPolicy === 'Exact') return undefined;
    for (const version of options.equivalentVersions?.(request.group, request.resource) ?? []) {
      if (version === request.version) continue;
      if (matchesResourceRules(rules, 'Exact', { ...request, version })) return version;
    }
    return undefined;
  };

  /** Selectors and match conditions; false to skip the webhook. Throws CallingWebhookError. */
  const selects = async (
    webhook: Webhook,
    attributes: AdmissionAttributes,
    request: MatchRequest,
    namespaceLabels: () => Promise<Record<string, string>>,
  ): Promise<boolean> => {
    const name = webhook.spec.name;
    try {
      const namespaceSelector = webhook.spec.namespaceSelector as LabelSelectorObject | undefined;
      if (!isEmptySelector(namespaceSelector)) {
        const labels = request.namespace === '' ? {} : await namespaceLabels();
        if (!matchesNamespaceSelector(namespaceSelector, { ...request, namespaceLabels: labels }))
          return false;
      }
      if (!matchesObjectSelector(webhook.spec.objectSelector as LabelSelectorObject | undefined, request))
        return false;
    } catch (error) {
      throw new CallingWebhookError(name, error instanceof Error ? error.message : String(error));
    }
    if (webhook.conditions === undefined) return true;
    const authorizer =
      options.authorize && attributes.user
        ? new CelAuthorizer(options.authorize, attributes.user, {
            group: attributes.resource.group,
            resource: attributes.resource.resource,
            subresource: attributes.subresource,
            namespace: attributes.namespace,
            name: request.name,
          })
        : undefined;
    const result = evaluatePolicy(webhook.conditions, {
      object: request.object,
      oldObject: request.oldObject,
      request: admissionRequest(attributes),
      namespaceObject: null,
      params: null,
      authorizer,
    });
    if (!result.matched) return false;
    const failure = result.decisions.find((decision) => decision.error);
    if (failure !== undefined)
      throw new CallingWebhookError(name, `failed to evaluate match conditions: ${failure.message}`);
    return true;
  };

  /** One call and its checks; throws CallingWebhookError, or a StatusError for a denial. */
  const call = async (candidate: Candidate, attributes: AdmissionAttributes): Promise<ReviewResult> => {
    const { webhook, version } = candidate;
    const name = webhook.spec.name;
    const version_ = reviewVersion(webhook.spec.admissionReviewVersions);
    if (version_ === undefined) {
      throw new CallingWebhookError(
        name,
        'could not create admission objects: webhook does not accept known AdmissionReview versions',
      );
    }
    const { group } = attributes.resource;
    const isDelete = attributes.operation === 'DELETE';
    const object = isDelete ? null : attributes.object;
    const oldObject = isDelete ? attributes.object : (attributes.oldObject ?? null);
    const { uid, body } = admissionReview(
      version_,
      attributes,
      { group, version, resource: attributes.resource.resource, kind: attributes.resource.kind },
      inVersion(object, group, version),
      inVersion(oldObject, group, version),
    );
    let response: unknown;
    try {
      response = await callWebhook(options.client, webhook.spec.clientConfig, webhook.timeoutSeconds, body);
    } catch (error) {
      throw new CallingWebhookError(name, error instanceof Error ? error.message : String(error));
    }
    let result: ReviewResult;
    try {
      result = verifyReviewResponse(version_, uid, mutating, response);
    } catch (error) {
      throw new CallingWebhookError(
        name,
        `received invalid webhook response: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    for (const warning of result.warnings) attributes.warnings.push(warning);
    if (!result.allowed) throw rejection(name, result.status);
    return result;
  };

  /** Calls a webhook and records its metrics; resolves false when the failure was ignored. */
  const invoke = async (
    candidate: Candidate,
    attributes: AdmissionAttributes,
  ): Promise<ReviewResult | undefined> => {
    const name = candidate.webhook.spec.name;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await call(candidate, attributes);
      options.metrics.observe(name, step, attributes.operation, seconds(), {
        rejected: false,
        code: 200,
        errorType: 'no_error',
      });
      return result;
    } catch (error) {
      if (error instanceof CallingWebhookError) {
        options.metrics.observe(name, step, attributes.operation, seconds(), {
          rejected: candidate.webhook.failurePolicy === 'Fail',
          code: 0,
          errorType: 'calling_webhook_error',
        });
        if (candidate.webhook.failurePolicy === 'Ignore') {
          options.metrics.observeFailOpen(name, step);
          return undefined;
        }
        throw internalError(error);
      }
      const code = error instanceof StatusError ? error.code : 500;
      options.metrics.observe(name, step, attributes.operation, seconds(), {
        rejected: true,
        code,
        errorType: 'no_error',
      });
      throw error;
    }
  };

  /** Applies a mutating webhook's patch; true when the object changed. */
  const applyPatch = (
    candidate: Candidate,
    attributes: AdmissionAttributes,
    patch: Buffer | undefined,
  ): boolean => {
    if (patch === undefined || patch.length === 0) return false;
    let operations: unknown;
    try {
      operations = JSON.parse(patch.toString('utf8'));
    } catch (error) {
      throw internalError(error);
    }
    if (Array.isArray(operations) && operations.length === 0) return false;
    const { group, version } = attributes.resource;
    const sent = inVersion(attributes.object, group, candidate.version)!;
    let patched: KubeObject;
    try {
      patched = applyJsonPatch(sent, operations) as KubeObject;
    } catch (error) {
      const detail = (error as { detail?: string }).detail;
      throw internalError(detail ?? (error instanceof Error ? error.message : String(error)));
    }
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched))
      throw internalError('the patched object is not an object');
    const back = inVersion(patched, group, version)!;
    options.redefault?.(attributes, back);
    const before = JSON.stringify(attributes.object);
    replaceObject(attributes.object, back);
    return JSON.stringify(back) !== before;
  };

  const admit = async (
    attributes: AdmissionAttributes,
    candidates: readonly Candidate[],
    request: MatchRequest,
  ) => {
    const namespaceLabels = namespaceLabelsOf(attributes);
    // The object as each IfNeeded webhook left it, to see whether a later one changed it.
    const outputs = new Map<Candidate, string>();
    for (const candidate of candidates) {
      const current = { ...request, object: attributes.operation === 'DELETE' ? null : attributes.object };
      if (!(await selectsOrFail(candidate, attributes, current, namespaceLabels))) continue;
      checkDryRun(candidate.webhook, attributes);
      const result = await invoke(candidate, attributes);
      if (result !== undefined) applyPatch(candidate, attributes, result.patch);
      if (candidate.webhook.reinvocationPolicy === 'IfNeeded')
        outputs.set(candidate, JSON.stringify(attributes.object));
    }
    for (const [candidate, output] of outputs) {
      if (JSON.stringify(attributes.object) === output) continue;
      const result = await invoke(candidate, attributes);
      if (result !== undefined) applyPatch(candidate, attributes, result.patch);
    }
  };

  const validate = async (
    attributes: AdmissionAttributes,
    candidates: readonly Candidate[],
    request: MatchRequest,
  ) => {
    const namespaceLabels = namespaceLabelsOf(attributes);
    const outcomes = await Promise.allSettled(
      candidates.map(async (candidate) => {
        if (!(await selectsOrFail(candidate, attributes, request, namespaceLabels))) return;
        checkDryRun(candidate.webhook, attributes);
        await invoke(candidate, attributes);
      }),
    );
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  };

  /** Selection with a selector or match-condition error under the webhook's failure policy. */
  const selectsOrFail = async (
    candidate: Candidate,
    attributes: AdmissionAttributes,
    request: MatchRequest,
    namespaceLabels: () => Promise<Record<string, string>>,
  ): Promise<boolean> => {
    try {
      return await selects(candidate.webhook, attributes, request, namespaceLabels);
    } catch (error) {
      if (!(error instanceof CallingWebhookError)) throw error;
      if (candidate.webhook.failurePolicy === 'Ignore') {
        options.metrics.observeFailOpen(candidate.webhook.spec.name, step);
        return false;
      }
      throw internalError(error);
    }
  };

  const namespaceLabelsOf = (attributes: AdmissionAttributes) => {
    let labels: Promise<Record<string, string>> | undefined;
    return () => {
      labels ??= options.namespaces
        .find('', attributes.namespace)
        .then((namespace) => (namespace?.metadata?.labels as Record<string, string> | undefined) ?? {});
      return labels;
    };
  };

  const run = (attributes: AdmissionAttributes): Promise<void> | undefined => {
    const webhooks = options.configurations.webhooks;
    if (webhooks.length === 0) return undefined;
    if (
      attributes.resource.group === 'admissionregistration.k8s.io' &&
      EXEMPT.has(attributes.resource.resource)
    )
      return undefined;
    const request = matchRequest(attributes);
    const candidates: Candidate[] = [];
    for (const webhook of webhooks) {
      const version = matchedVersion(webhook, request);
      if (version !== undefined) candidates.push({ webhook, version });
    }
    if (candidates.length === 0) return undefined;
    return mutating ? admit(attributes, candidates, request) : validate(attributes, candidates, request);
  };

  return mutating
    ? { name: 'MutatingAdmissionWebhook', admit: run }
    : { name: 'ValidatingAdmissionWebhook', validate: run };
}

/** Webhooks with side effects refuse dry-run requests (upstream's NewDryRunUnsupportedErr). */
function checkDryRun(webhook: Webhook, attributes: AdmissionAttributes): void {
  if (!attributes.dryRun) return;
  if (webhook.sideEffects === 'None' || webhook.sideEffects === 'NoneOnDryRun') return;
  throw badRequest(`admission webhook "${webhook.spec.name}" does not support dry run`);
}
