// AdmissionReview requests and responses (k8s.io/apiserver/pkg/admission/plugin/webhook/request/
// admissionreview.go): the review sent in the first of the webhook's admissionReviewVersions that
// tkube speaks (v1 or v1beta1), and the checks a response must pass, with upstream's texts.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../api/object.js';
import type { AdmissionAttributes } from '../chain.js';

export const REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ReviewVersion = (typeof REVIEW_VERSIONS)[number];

/** The group/version/resource and kind a webhook is called with (the matched version under Equivalent). */
export interface ReviewTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
}

/** What the dispatcher reads of a verified response. */
export interface ReviewResult {
  readonly allowed: boolean;
  readonly status?: ReviewStatus | undefined;
  /** The decoded JSONPatch bytes (mutating webhooks only). */
  readonly patch?: Buffer | undefined;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** The `response.status` of a review (a metav1.Status). */
export interface ReviewStatus {
  code?: number;
  message?: string;
  reason?: string;
  status?: string;
  details?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** The first version both sides speak, or undefined. */
export function reviewVersion(accepted: readonly string[] | undefined): ReviewVersion | undefined {
  for (const version of accepted ?? []) {
    if ((REVIEW_VERSIONS as readonly string[]).includes(version)) return version as ReviewVersion;
  }
  return undefined;
}

const OPTIONS_KIND: Readonly<Record<string, string>> = {
  CREATE: 'CreateOptions',
  UPDATE: 'UpdateOptions',
  DELETE: 'DeleteOptions',
};

/** The review to send; `object`/`oldObject` already in the target's version. */
export function admissionReview(
  version: ReviewVersion,
  attributes: AdmissionAttributes,
  target: ReviewTarget,
  object: KubeObject | null,
  oldObject: KubeObject | null,
): { uid: string; body: Record<string, unknown> } {
  const uid = randomUUID();
  const { resource } = attributes;
  const user = attributes.user;
  const request: Record<string, unknown> = {
    uid,
    kind: { group: target.group, version: target.version, kind: target.kind },
    resource: { group: target.group, version: target.version, resource: target.resource },
    requestKind: { group: resource.group, version: resource.version, kind: resource.kind },
    requestResource: { group: resource.group, version: resource.version, resource: resource.resource },
    name: attributes.name || (attributes.object?.metadata?.name ?? ''),
    operation: attributes.operation,
    userInfo: {
      username: user?.name ?? '',
      ...(user?.uid ? { uid: user.uid } : {}),
      ...(user && user.groups.length > 0 ? { groups: [...user.groups] } : {}),
      ...(user?.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
    },
    object,
    oldObject,
    dryRun: attributes.dryRun,
  };
  // Connect requests carry their options as the object, and no operation options.
  const optionsKind = OPTIONS_KIND[attributes.operation];
  if (optionsKind !== undefined) request.options = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
  if (attributes.subresource !== '') {
    request.subResource = attributes.subresource;
    request.requestSubResource = attributes.subresource;
  }
  if (resource.namespaced && attributes.namespace !== '') request.namespace = attributes.namespace;
  return {
    uid,
    body: { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * Checks a decoded response as upstream's VerifyAdmissionResponse does; throws an Error whose
 * message is upstream's reason (the caller prefixes "received invalid webhook response: ").
 */
export function verifyReviewResponse(
  version: ReviewVersion,
  uid: string,
  mutating: boolean,
  review: unknown,
): ReviewResult {
  if (!isRecord(review)) throw new Error('expected an AdmissionReview object');
  const response = review.response;
  if (version === 'v1') {
    const apiVersion = String(review.apiVersion ?? '');
    const kind = String(review.kind ?? '');
    if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
      throw new Error(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${apiVersion}, Kind=${kind}`,
      );
    }
  }
  if (!isRecord(response)) throw new Error('webhook response was absent');
  if (version === 'v1' && response.uid !== uid) {
    throw new Error(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  }
  const patchText = typeof response.patch === 'string' ? response.patch : '';
  let patch: Buffer | undefined;
  if (patchText !== '') {
    if (!mutating) throw new Error('validating webhook may not return response.patch');
    const patchType = response.patchType;
    if (version === 'v1' && (patchType === undefined || patchType === null)) {
      throw new Error('webhook returned response.patch but not response.patchType');
    }
    if (patchType !== undefined && patchType !== null && patchType !== 'JSONPatch') {
      throw new Error(`webhook returned invalid response.patchType of "${String(patchType)}"`);
    }
    patch = Buffer.from(patchText, 'base64');
  }
  const annotations: Record<string, string> = {};
  if (isRecord(response.auditAnnotations)) {
    for (const [key, value] of Object.entries(response.auditAnnotations))
      if (typeof value === 'string') annotations[key] = value;
  }
  return {
    allowed: response.allowed === true,
    status: isRecord(response.status) ? (response.status as ReviewStatus) : undefined,
    patch,
    warnings: stringList(response.warnings),
    auditAnnotations: annotations,
  };
}
