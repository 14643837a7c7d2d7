// A CRD's conversion webhook (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go):
// the objects that are not in the desired version go in one ConversionReview (v1 or v1beta1, the
// first the CRD accepts), and the response is checked as upstream checks it: the review's kind
// and uid (v1 only), the result's status, the number of objects, each one's apiVersion, kind,
// name, namespace and uid; of its metadata only labels and annotations are taken, the rest is the
// original's.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/object.js';
import { aggregateMessages, fieldErrorMessage } from '../../api/selectors/field-errors.js';
import type { WebhookClientConfig } from '../../api/types/apiextensions-v1.generated.js';
import { callWebhook, WebhookCallError, type WebhookClientDeps } from '../admission/webhook/client.js';
import { validateAnnotations, validateLabels } from '../registry/validation/object-meta.js';

/** How long a conversion call may take (the apiserver's webhook client default). */
export const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30;

const REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;

export interface ConversionWebhookConfig {
  readonly clientConfig: WebhookClientConfig;
  readonly conversionReviewVersions: readonly string[];
}

/**
 * Converts `objects` to `apiVersion` in one review; objects already in it are left as they are.
 * `asList`: they are a list's items (errors then name the list kind, as upstream's do).
 */
export type BatchConverter = (
  objects: KubeObject[],
  apiVersion: string,
  asList: boolean,
) => Promise<KubeObject[]>;

/** Why a conversion webhook call failed, as upstream's `failure_type` metric label names it. */
export type ConversionFailureType =
  | 'conversion_webhook_call_failure'
  | 'conversion_webhook_malformed_response_failure'
  | 'conversion_webhook_partial_response_failure'
  | 'conversion_webhook_invalid_converted_object_failure'
  | 'conversion_webhook_no_objects_returned_failure';

/** A failed conversion; the message is upstream's `conversion webhook for <gvk> ...` text. */
export class ConversionError extends Error {
  constructor(
    message: string,
    readonly failureType: ConversionFailureType = 'conversion_webhook_invalid_converted_object_failure',
  ) {
    super(message);
  }
}

/** Go's GroupVersionKind.String(): `group/version, Kind=kind` (core: `/v1, Kind=...`). */
function gvkString(apiVersion: string, kind: string): string {
  return `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}, Kind=${kind}`;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's %T of a decoded JSON value. */
function goType(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}

export function conversionWebhookConverter(
  config: ConversionWebhookConfig,
  client: WebhookClientDeps,
  timeoutSeconds = CONVERSION_WEBHOOK_TIMEOUT_SECONDS,
): BatchConverter {
  const reviewVersion = config.conversionReviewVersions.find((version) =>
    (REVIEW_VERSIONS as readonly string[]).includes(version),
  );
  return async (objects, apiVersion, asList) => {
    const pending = objects.filter((object) => object.apiVersion !== apiVersion);
    if (pending.length === 0) return objects;
    const first = pending[0]!;
    // A list is named by its list kind, one object by its own, as upstream names `in`.
    const subject = gvkString(
      first.apiVersion ?? '',
      asList ? `${first.kind ?? ''}List` : (first.kind ?? ''),
    );
    // Validation admits no CRD without a known version: upstream's text, without the prefix.
    if (reviewVersion === undefined)
      throw new ConversionError('no supported conversion review versions', 'conversion_webhook_call_failure');
    const uid = randomUUID();
    const reviewApiVersion = `apiextensions.k8s.io/${reviewVersion}`;
    const review = {
      apiVersion: reviewApiVersion,
      kind: 'ConversionReview',
      request: { uid, desiredAPIVersion: apiVersion, objects: pending },
    };
    let answer: unknown;
    try {
      answer = await callWebhook(client, config.clientConfig, timeoutSeconds, review);
    } catch (error) {
      if (!(error instanceof WebhookCallError)) throw error;
      // The admission client words its failures for admission; the REST client's error is the rest.
      const reason = error.message.replace(/^failed to call webhook: /, '');
      throw new ConversionError(
        `conversion webhook for ${subject} failed: ${reason}`,
        'conversion_webhook_call_failure',
      );
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(answer, reviewVersion, reviewApiVersion, uid);
    } catch (error) {
      throw new ConversionError(
        `conversion webhook for ${subject} failed: ${(error as Error).message}`,
        'conversion_webhook_malformed_response_failure',
      );
    }
    if (converted.length !== pending.length) {
      throw new ConversionError(
        `conversion webhook for ${subject} returned ${converted.length} objects, expected ${pending.length}`,
        'conversion_webhook_partial_response_failure',
      );
    }
    if (!asList) return [checkedObject(pending[0]!, converted[0], apiVersion, subject)];
    let index = 0;
    return objects.map((original) => {
      if (original.apiVersion === apiVersion) return original;
      const candidate = converted[index];
      const invalid = (at: number, detail: string) =>
        new ConversionError(
          `conversion webhook for ${subject} returned invalid converted object at index ${at}: ${detail}`,
        );
      const missing = kindMissing(candidate);
      if (missing) throw invalid(index, missing);
      const object = candidate as Json;
      // Upstream counts the object as done before its remaining checks: they name the next index.
      index++;
      const problem = typeProblem(original, object, apiVersion) ?? identityProblem(original, object);
      if (problem) throw invalid(index, problem);
      try {
        return restoreObjectMeta(original, object);
      } catch (error) {
        throw new ConversionError(
          `conversion webhook for ${subject} returned invalid metadata in object at index ${index}: ${(error as Error).message}`,
        );
      }
    });
  };
}

/** One object converted alone: upstream's single-object checks and texts. */
function checkedObject(
  original: KubeObject,
  candidate: unknown,
  apiVersion: string,
  subject: string,
): KubeObject {
  const missing = kindMissing(candidate);
  if (missing) throw new ConversionError(missing);
  const object = candidate as Json;
  const typeError = typeProblem(original, object, apiVersion);
  if (typeError) {
    throw new ConversionError(
      `conversion webhook for ${subject} returned invalid object at index 0: ${typeError}`,
    );
  }
  const identityError = identityProblem(original, object);
  if (identityError) {
    throw new ConversionError(`conversion webhook for ${subject} returned invalid object: ${identityError}`);
  }
  try {
    return restoreObjectMeta(original, object);
  } catch (error) {
    throw new ConversionError(
      `conversion webhook for ${subject} returned invalid metadata: ${(error as Error).message}`,
    );
  }
}

/** Decoding a converted object as unstructured: it needs a kind. */
function kindMissing(candidate: unknown): string | undefined {
  if (isObject(candidate) && typeof candidate.kind === 'string' && candidate.kind !== '') return undefined;
  return `Object 'Kind' is missing in '${JSON.stringify(candidate ?? null)}'`;
}

/** The converted object must be in the desired version and keep its kind. */
function typeProblem(original: KubeObject, converted: Json, apiVersion: string): string | undefined {
  const got = typeof converted.apiVersion === 'string' ? converted.apiVersion : '';
  if (got !== apiVersion) return `invalid groupVersion (expected ${apiVersion}, received ${got})`;
  if (converted.kind !== original.kind) {
    return `invalid kind (expected ${original.kind}, received ${String(converted.kind)})`;
  }
  return undefined;
}

/** getConvertedObjectsFromResponse: v1 reviews are checked for their kind and uid, v1beta1 ones are not. */
function convertedObjectsOf(answer: unknown, version: string, apiVersion: string, uid: string): unknown[] {
  const review = isObject(answer) ? answer : {};
  if (version === 'v1') {
    const gotApiVersion = typeof review.apiVersion === 'string' ? review.apiVersion : '';
    const gotKind = typeof review.kind === 'string' ? review.kind : '';
    if (gotApiVersion !== apiVersion || gotKind !== 'ConversionReview') {
      throw new Error(
        `expected webhook response of ${gvkString(apiVersion, 'ConversionReview')}, got ${gvkString(gotApiVersion, gotKind)}`,
      );
    }
  }
  const response = review.response;
  if (!isObject(response)) throw new Error('no response provided');
  if (version === 'v1' && response.uid !== uid) {
    throw new Error(
      `expected response.uid="${uid}", got "${typeof response.uid === 'string' ? response.uid : ''}"`,
    );
  }
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message !== '') throw new Error(result.message);
    throw new Error(
      `response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`,
    );
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** validateConvertedObject: what identifies the object may not change. */
function identityProblem(original: KubeObject, converted: Json): string | undefined {
  const meta = isObject(converted.metadata) ? converted.metadata : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const checks: [string, string, string][] = [
    ['name', original.metadata?.name ?? '', text(meta.name)],
    ['namespace', original.metadata?.namespace ?? '', text(meta.namespace)],
    ['UID', original.metadata?.uid ?? '', text(meta.uid)],
  ];
  for (const [what, expected, got] of checks) {
    if (expected !== got) return `must have the same ${what}: ${expected} != ${got}`;
  }
  return undefined;
}

/** restoreObjectMeta: the original metadata, with the webhook's labels and annotations if valid. */
function restoreObjectMeta(original: KubeObject, converted: Json): KubeObject {
  if (!('metadata' in converted)) throw new Error('missing metadata in converted object');
  const responseMeta = converted.metadata;
  if (!isObject(responseMeta)) {
    throw new Error(`invalid metadata of type ${goType(responseMeta)} in converted object`);
  }
  const result: Json = { ...(original.metadata ?? {}) };
  const originalMeta = (original.metadata ?? {}) as Json;
  for (const field of ['labels', 'annotations'] as const) {
    const value = responseMeta[field];
    if (value === undefined || value === null) {
      delete result[field];
      continue;
    }
    if (!isObject(value))
      throw new Error(`invalid metadata.${field} of type ${goType(value)} in converted object`);
    const before = isObject(originalMeta[field]) ? (originalMeta[field] as Json) : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [key, entry] of Object.entries(value)) {
      if (typeof entry !== 'string') {
        throw new Error(
          `metadata.${field}[${key}] must be a string, but is ${goType(entry)} in converted object`,
        );
      }
      if (before[key] !== entry) changed = true;
    }
    if (changed) {
      // Upstream validates annotations at `metadata.annotation`.
      const errors =
        field === 'labels'
          ? validateLabels(value, 'metadata.labels')
          : validateAnnotations(value, 'metadata.annotation');
      if (errors.length > 0) throw new Error(aggregateMessages(errors.map(fieldErrorMessage)));
    }
    result[field] = value;
  }
  return { ...converted, metadata: result } as KubeObject;
}
