// ServiceAccounts: only metadata is validated.
import type { KubeObject } from '../../../../api/object.js';
import type { FieldError } from '../../../../api/selectors/index.js';
import { nameIsDnsSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

export function validateServiceAccount(account: KubeObject): FieldError[] {
  return validateObjectMeta(account.metadata, { namespaced: true, name: nameIsDnsSubdomain });
}

export function validateServiceAccountUpdate(account: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(account.metadata, old.metadata), ...validateServiceAccount(account)];
}
