// Helpers for the validation tests: run a kind's defaults and validation as kube-apiserver would.
import type { KubeObject } from '../../../src/api/object.js';
import { type FieldError, fieldErrorMessage } from '../../../src/api/selectors/index.js';
import { GoRendered } from '../../../src/apiserver/registry/validation/go-rendered.js';
import { builtinValidation } from '../../../src/apiserver/registry/validation/index.js';

export type ErrorSummary = Pick<FieldError, 'type' | 'field' | 'detail'>;

function rules(key: string) {
  const found = builtinValidation[key];
  if (found === undefined) throw new Error(`no rules for ${key}`);
  return found;
}

/** Defaults applied in place (a copy is returned). */
export function defaulted(key: string, object: KubeObject): KubeObject {
  const copy = structuredClone(object);
  rules(key).defaults?.(copy);
  return copy;
}

/** Defaults, then validation on create. */
export function createErrors(key: string, object: KubeObject): FieldError[] {
  return rules(key).validateCreate?.(defaulted(key, object)) ?? [];
}

/** Defaults on the new object, then validation on update against the (stored) old one. */
export function updateErrors(key: string, object: KubeObject, old: KubeObject): FieldError[] {
  return rules(key).validateUpdate?.(defaulted(key, object), old, '') ?? [];
}

/** Validation of a write to another subresource (`ephemeralcontainers`), without defaulting. */
export function subresourceUpdateErrors(
  key: string,
  subresource: string,
  object: KubeObject,
  old: KubeObject,
): FieldError[] {
  return rules(key).validateUpdate?.(object, old, subresource) ?? [];
}

/** Validation of a status write (no defaulting: the registry keeps the stored spec). */
export function statusUpdateErrors(key: string, object: KubeObject, old: KubeObject): FieldError[] {
  return rules(key).validateUpdate?.(object, old, 'status') ?? [];
}

export function summaries(errors: readonly FieldError[]): ErrorSummary[] {
  return errors.map(({ type, field, detail }) => ({ type, field, detail }));
}

/** `field: body` with Go-rendered values printed verbatim (as the lead's renderer should). */
export function messages(errors: readonly FieldError[]): string[] {
  return errors.map((error) =>
    error.badValue instanceof GoRendered
      ? error.badValue.omitted
        ? `${error.field}: Invalid value${error.detail === '' ? '' : `: ${error.detail}`}`
        : fieldErrorMessage({ ...error, badValue: '\u0000' }).replace('"\\x00"', error.badValue.text)
      : fieldErrorMessage(error),
  );
}

export const DNS_SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const DNS_LABEL_RULE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const DNS1035_RULE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** A minimal valid pod. */
export function pod(overrides: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', ...overrides },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
  };
}
