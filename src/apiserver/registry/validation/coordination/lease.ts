// coordination.k8s.io/v1 Leases (validated with apimachinery's ObjectMeta rules only).
import type { KubeObject } from '../../../../api/object.js';
import { type FieldError, fieldInvalid } from '../../../../api/selectors/index.js';
import { fieldsOf, optionalNumber } from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

function validateSpec(spec: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const duration = optionalNumber(spec.leaseDurationSeconds);
  if (duration !== undefined && duration <= 0) {
    errors.push(fieldInvalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  }
  const transitions = optionalNumber(spec.leaseTransitions);
  if (transitions !== undefined && transitions < 0) {
    errors.push(fieldInvalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  return errors;
}

export function validateLease(lease: KubeObject): FieldError[] {
  // Lease uses apimachinery's ValidateObjectMeta, which has no rule for unprefixed finalizers.
  const errors = validateObjectMeta(lease.metadata, {
    namespaced: true,
    name: nameIsDnsSubdomain,
    coreFinalizers: false,
  });
  return [...errors, ...validateSpec(fieldsOf(lease.spec))];
}

export function validateLeaseUpdate(lease: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(lease.metadata, old.metadata, 'metadata', false);
  return [...errors, ...validateSpec(fieldsOf(lease.spec))];
}
