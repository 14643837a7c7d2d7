// LimitRanges: limit types, resource names and the ordering of min/default/max.
import type { KubeObject } from '../../../../api/object.js';
import { Quantity } from '../../../../api/quantity.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { fieldsOf, isJsonObject, objectsOf, stringOf } from '../json.js';
import { isQualifiedName, nameIsDnsSubdomain } from '../names.js';
import { fieldDuplicate, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import {
  isOvercommitAllowed,
  resourceListOf,
  validateContainerResourceName,
  validateResourceName,
} from '../resources.js';

const LIMIT_TYPES = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);
const MAX_MILLI_VALUE = 9223372036854775n;
const ONE = Quantity.fromInteger(1);

function validateTypeName(type: string, path: string): FieldError[] {
  const errors = isQualifiedName(type).map((problem) => fieldInvalid(path, type, problem));
  if (errors.length > 0) return errors;
  if (!type.includes('/') && !LIMIT_TYPES.has(type)) {
    return [fieldInvalid(path, type, 'must be a standard limit type or fully qualified')];
  }
  return [];
}

function validateLimitResourceName(type: string, name: string, path: string): FieldError[] {
  return type === 'Pod' || type === 'Container'
    ? validateContainerResourceName(name, path)
    : validateResourceName(name, path);
}

/** Go's %f: six decimals. */
function goFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : Number.isNaN(value) ? 'NaN' : '-Inf';
  return value.toFixed(6);
}

/** ValidateLimitRange. */
export function validateLimitRange(limitRange: KubeObject): FieldError[] {
  const errors = validateObjectMeta(limitRange.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  const types = new Set<string>();
  objectsOf(fieldsOf(limitRange.spec).limits).forEach((limit, index) => {
    const itemPath = indexPath('spec.limits', index);
    const type = stringOf(limit.type);
    errors.push(...validateTypeName(type, childPath(itemPath, 'type')));
    if (types.has(type)) errors.push(fieldDuplicate(childPath(itemPath, 'type'), type));
    types.add(type);
    const keys = new Set<string>();
    const lists: Record<string, Map<string, Quantity>> = {};
    const read = (key: string) => {
      lists[key] = resourceListOf(limit[key]);
      for (const name of Object.keys(fieldsOf(limit[key]))) {
        errors.push(...validateLimitResourceName(type, name, indexPath(childPath(itemPath, key), name)));
        keys.add(name);
      }
    };
    read('max');
    read('min');
    if (type === 'Pod') {
      if (isJsonObject(limit.default) && Object.keys(limit.default).length > 0) {
        errors.push(
          fieldForbidden(childPath(itemPath, 'default'), "may not be specified when `type` is 'Pod'"),
        );
      }
      if (isJsonObject(limit.defaultRequest) && Object.keys(limit.defaultRequest).length > 0) {
        errors.push(
          fieldForbidden(childPath(itemPath, 'defaultRequest'), "may not be specified when `type` is 'Pod'"),
        );
      }
      lists.default = new Map();
      lists.defaultRequest = new Map();
    } else {
      read('default');
      read('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !lists.min!.has('storage') && !lists.max!.has('storage')) {
      errors.push(
        fieldRequired(
          childPath(itemPath, 'limits'),
          'either minimum or maximum storage value is required, but neither was provided',
        ),
      );
    }
    read('maxLimitRequestRatio');
    for (const key of keys) {
      const min = lists.min!.get(key);
      const max = lists.max!.get(key);
      const fallback = lists.default!.get(key);
      const request = lists.defaultRequest!.get(key);
      const ratio = lists.maxLimitRequestRatio!.get(key);
      const at = (list: string) => indexPath(childPath(itemPath, list), key);
      if (min && max && min.cmp(max) > 0) {
        errors.push(
          fieldInvalid(at('min'), min.toString(), `min value ${min} is greater than max value ${max}`),
        );
      }
      if (request && min && min.cmp(request) > 0) {
        errors.push(
          fieldInvalid(
            at('defaultRequest'),
            request.toString(),
            `min value ${min} is greater than default request value ${request}`,
          ),
        );
      }
      if (request && max && request.cmp(max) > 0) {
        errors.push(
          fieldInvalid(
            at('defaultRequest'),
            request.toString(),
            `default request value ${request} is greater than max value ${max}`,
          ),
        );
      }
      if (request && fallback && request.cmp(fallback) > 0) {
        errors.push(
          fieldInvalid(
            at('defaultRequest'),
            request.toString(),
            `default request value ${request} is greater than default limit value ${fallback}`,
          ),
        );
      }
      if (fallback && min && min.cmp(fallback) > 0) {
        errors.push(
          fieldInvalid(
            at('default'),
            min.toString(),
            `min value ${min} is greater than default value ${fallback}`,
          ),
        );
      }
      if (fallback && max && fallback.cmp(max) > 0) {
        errors.push(
          fieldInvalid(
            at('default'),
            max.toString(),
            `default value ${fallback} is greater than max value ${max}`,
          ),
        );
      }
      if (ratio && ratio.cmp(ONE) < 0) {
        errors.push(
          fieldInvalid(at('maxLimitRequestRatio'), ratio.toString(), `ratio ${ratio} is less than 1`),
        );
      }
      if (ratio && min && max) {
        let ratioValue = Number(ratio.value());
        let minValue = Number(min.value());
        let maxValue = Number(max.value());
        if (
          ratio.value() < MAX_MILLI_VALUE &&
          min.value() < MAX_MILLI_VALUE &&
          max.value() < MAX_MILLI_VALUE
        ) {
          ratioValue = Number(ratio.milliValue()) / 1000;
          minValue = Number(min.milliValue());
          maxValue = Number(max.milliValue());
        }
        const limitRatio = maxValue / minValue;
        if (ratioValue > limitRatio) {
          errors.push(
            fieldInvalid(
              at('maxLimitRequestRatio'),
              ratio.toString(),
              `ratio ${ratio} is greater than max/min = ${goFloat(limitRatio)}`,
            ),
          );
        }
      }
      if (!isOvercommitAllowed(key) && fallback && request && fallback.cmp(request) !== 0) {
        errors.push(
          fieldInvalid(
            at('defaultRequest'),
            request.toString(),
            `default value ${fallback} must equal to defaultRequest value ${request} in ${key}`,
          ),
        );
      }
    }
  });
  return errors;
}

export function validateLimitRangeUpdate(limitRange: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(limitRange.metadata, old.metadata), ...validateLimitRange(limitRange)];
}
