// ResourceQuotas: resource names, quantities, scopes and scope selectors.
import type { KubeObject } from '../../../../api/object.js';
import { childPath, type FieldError, fieldInvalid, fieldRequired } from '../../../../api/selectors/index.js';
import { GoRendered, goTypedStringSlice } from '../go-rendered.js';
import { fieldsOf, isJsonObject, objectOf, objectsOf, stringOf, stringsOf } from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import { FIELD_IMMUTABLE, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import {
  isStandardQuotaResourceName,
  resourceListOf,
  validateQuotaResourceName,
  validateResourceQuantityValue,
} from '../resources.js';

const STANDARD_SCOPES = new Set([
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
]);
const POD_OBJECT_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set([
  'cpu',
  'memory',
  'limits.cpu',
  'limits.memory',
  'requests.cpu',
  'requests.memory',
]);
const EXISTS_ONLY_SCOPES = new Set([
  'BestEffort',
  'NotBestEffort',
  'Terminating',
  'NotTerminating',
  'CrossNamespacePodAffinity',
]);

function scopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
      return POD_OBJECT_COUNT.has(resource) || POD_COMPUTE.has(resource);
    case 'BestEffort':
    case 'CrossNamespacePodAffinity':
      return POD_OBJECT_COUNT.has(resource);
    default:
      return true;
  }
}

function conflictingScopes(scopes: Set<string>): boolean {
  return (
    (scopes.has('BestEffort') && scopes.has('NotBestEffort')) ||
    (scopes.has('Terminating') && scopes.has('NotTerminating'))
  );
}

function validateResourceMap(list: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isJsonObject(list)) return errors;
  const quantities = resourceListOf(list);
  for (const name of Object.keys(list)) {
    const itemPath = `${path}[${name}]`;
    errors.push(...validateQuotaResourceName(name, itemPath));
    const quantity = quantities.get(name);
    if (quantity !== undefined) errors.push(...validateResourceQuantityValue(name, quantity, itemPath));
  }
  return errors;
}

/** ValidateResourceQuotaSpec. */
function validateQuotaSpec(spec: Record<string, unknown>, path: string): FieldError[] {
  const errors = validateResourceMap(spec.hard, childPath(path, 'hard'));
  const hard = Object.keys(fieldsOf(spec.hard)).sort();
  const scopes = stringsOf(spec.scopes);
  const scopesPath = childPath(path, 'scopes');
  const renderedScopes = goTypedStringSlice('core.ResourceQuotaScope', spec.scopes);
  const scopeSet = new Set<string>();
  for (const scope of scopes) {
    if (!STANDARD_SCOPES.has(scope))
      errors.push(fieldInvalid(scopesPath, renderedScopes, 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeValidForResource(scope, resource)) {
        errors.push(fieldInvalid(scopesPath, renderedScopes, 'unsupported scope applied to resource'));
      }
    }
    scopeSet.add(scope);
  }
  if (conflictingScopes(scopeSet))
    errors.push(fieldInvalid(scopesPath, renderedScopes, 'conflicting scopes'));
  const selector = objectOf(spec.scopeSelector);
  if (selector !== undefined) {
    const expressionsPath = childPath(childPath(path, 'scopeSelector'), 'matchExpressions');
    const selectorScopes = new Set<string>();
    for (const requirement of objectsOf(selector.matchExpressions)) {
      const scope = stringOf(requirement.scopeName);
      const operator = stringOf(requirement.operator);
      const values = stringsOf(requirement.values);
      if (!STANDARD_SCOPES.has(scope))
        errors.push(fieldInvalid(childPath(expressionsPath, 'scopeName'), scope, 'unsupported scope'));
      for (const resource of hard) {
        if (isStandardQuotaResourceName(resource) && !scopeValidForResource(scope, resource)) {
          errors.push(
            fieldInvalid(
              expressionsPath,
              new GoRendered('&core.ScopeSelector{...}'),
              'unsupported scope applied to resource',
            ),
          );
        }
      }
      if (EXISTS_ONLY_SCOPES.has(scope) && operator !== 'Exists') {
        errors.push(
          fieldInvalid(
            childPath(expressionsPath, 'operator'),
            operator,
            "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
          ),
        );
      }
      switch (operator) {
        case 'In':
        case 'NotIn':
          if (values.length === 0) {
            errors.push(
              fieldRequired(
                childPath(expressionsPath, 'values'),
                "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
              ),
            );
          }
          break;
        case 'Exists':
        case 'DoesNotExist':
          if (values.length !== 0) {
            errors.push(
              fieldInvalid(
                childPath(expressionsPath, 'values'),
                values,
                "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
              ),
            );
          }
          break;
        default:
          errors.push(
            fieldInvalid(childPath(expressionsPath, 'operator'), operator, 'not a valid selector operator'),
          );
      }
      selectorScopes.add(scope);
    }
    if (conflictingScopes(selectorScopes))
      errors.push(fieldInvalid(expressionsPath, renderedScopes, 'conflicting scopes'));
  }
  return errors;
}

/** ValidateResourceQuota. */
export function validateResourceQuota(quota: KubeObject): FieldError[] {
  const status = fieldsOf(quota.status);
  return [
    ...validateObjectMeta(quota.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateQuotaSpec(fieldsOf(quota.spec), 'spec'),
    ...validateResourceMap(status.hard, 'status.hard'),
    ...validateResourceMap(status.used, 'status.used'),
  ];
}

/** ValidateResourceQuotaUpdate: scopes may not change. */
export function validateResourceQuotaUpdate(quota: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(quota.metadata, old.metadata);
  errors.push(...validateQuotaSpec(fieldsOf(quota.spec), 'spec'));
  const next = new Set(stringsOf(fieldsOf(quota.spec).scopes));
  const previous = new Set(stringsOf(fieldsOf(old.spec).scopes));
  if (next.size !== previous.size || [...next].some((scope) => !previous.has(scope))) {
    errors.push(
      fieldInvalid(
        'spec.scopes',
        goTypedStringSlice('core.ResourceQuotaScope', fieldsOf(quota.spec).scopes),
        FIELD_IMMUTABLE,
      ),
    );
  }
  return errors;
}
