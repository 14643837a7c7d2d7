// Downward API selectors (env valueFrom and downwardAPI volume items): fieldRef and resourceFieldRef.
import { Quantity } from '../../../../api/quantity.js';
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../../api/selectors/index.js';
import { fieldsOf, isSet, stringOf } from '../json.js';
import { isQualifiedName } from '../names.js';

export const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

export const VOLUME_FIELD_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
];

const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];
const HUGE_PAGES_FIELD_PREFIXES = ['limits.hugepages-', 'requests.hugepages-'];

const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/** fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['x']` → path and subscript. */
function splitSubscripted(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const body = fieldPath.slice(0, -2);
  const open = body.indexOf("['");
  if (open <= 0) return undefined;
  return { path: body.slice(0, open), subscript: body.slice(open + 2) };
}

/** podshelper.ConvertDownwardAPIFieldLabel: the internal field path, or the error text. */
function convertFieldLabel(apiVersion: string, label: string): { path: string } | { error: string } {
  if (apiVersion !== 'v1') return { error: `unsupported pod version: ${apiVersion}` };
  const split = splitSubscripted(label);
  if (split !== undefined) {
    if (split.path === 'metadata.annotations' || split.path === 'metadata.labels') return { path: label };
    return { error: `field label does not support subscript: ${label}` };
  }
  if (CONVERTIBLE_FIELD_PATHS.has(label)) return { path: label };
  if (label === 'spec.host') return { path: 'spec.nodeName' };
  return { error: `field label not supported: ${label}` };
}

/** validateObjectFieldSelector. */
export function validateObjectFieldSelector(
  selector: unknown,
  allowed: readonly string[],
  path: string,
): FieldError[] {
  const fields = fieldsOf(selector);
  const apiVersion = stringOf(fields.apiVersion);
  if (apiVersion === '') return [fieldRequired(childPath(path, 'apiVersion'), '')];
  const fieldPath = stringOf(fields.fieldPath);
  if (fieldPath === '') return [fieldRequired(childPath(path, 'fieldPath'), '')];
  const converted = convertFieldLabel(apiVersion, fieldPath);
  if ('error' in converted) {
    return [
      fieldInvalid(childPath(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${converted.error}`),
    ];
  }
  const split = splitSubscripted(converted.path);
  if (split !== undefined) {
    if (split.path === 'metadata.annotations') {
      const key = split.subscript.toLowerCase();
      return isQualifiedName(key).map((problem) => fieldInvalid(path, key, problem));
    }
    if (split.path === 'metadata.labels') {
      return isQualifiedName(split.subscript).map((problem) => fieldInvalid(path, split.subscript, problem));
    }
    return [fieldInvalid(path, split.path, 'does not support subscript')];
  }
  if (!allowed.includes(converted.path)) {
    return [fieldNotSupported(childPath(path, 'fieldPath'), converted.path, allowed)];
  }
  return [];
}

const CPU_DIVISORS = new Set(['1m', '1']);
const SIZE_DIVISORS = new Set([
  '1',
  '1k',
  '1M',
  '1G',
  '1T',
  '1P',
  '1E',
  '1Ki',
  '1Mi',
  '1Gi',
  '1Ti',
  '1Pi',
  '1Ei',
]);

function validateDivisor(resource: string, divisor: unknown, path: string): FieldError[] {
  if (!isSet(divisor)) return [];
  const quantity = Quantity.tryFromJson(divisor);
  if (quantity === undefined || quantity.isZero()) return [];
  const text = quantity.toString();
  const divisorPath = childPath(path, 'divisor');
  const errors: FieldError[] = [];
  const sizes = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';
  switch (resource) {
    case 'limits.cpu':
    case 'requests.cpu':
      if (!CPU_DIVISORS.has(text)) {
        errors.push(
          fieldInvalid(
            divisorPath,
            resource,
            "only divisor's values 1m and 1 are supported with the cpu resource",
          ),
        );
      }
      break;
    case 'limits.memory':
    case 'requests.memory':
      if (!SIZE_DIVISORS.has(text)) {
        errors.push(
          fieldInvalid(
            divisorPath,
            resource,
            `only divisor's values ${sizes} are supported with the memory resource`,
          ),
        );
      }
      break;
    case 'limits.ephemeral-storage':
    case 'requests.ephemeral-storage':
      if (!SIZE_DIVISORS.has(text)) {
        errors.push(
          fieldInvalid(
            divisorPath,
            resource,
            `only divisor's values ${sizes} are supported with the local ephemeral storage resource`,
          ),
        );
      }
      break;
  }
  if (HUGE_PAGES_FIELD_PREFIXES.some((prefix) => resource.startsWith(prefix)) && !SIZE_DIVISORS.has(text)) {
    errors.push(
      fieldInvalid(
        divisorPath,
        resource,
        `only divisor's values ${sizes} are supported with the hugepages resource`,
      ),
    );
  }
  return errors;
}

/** validateContainerResourceFieldSelector; `volume` requires the container name. */
export function validateResourceFieldSelector(
  selector: unknown,
  path: string,
  volume: boolean,
): FieldError[] {
  const fields = fieldsOf(selector);
  const errors: FieldError[] = [];
  const resource = stringOf(fields.resource);
  if (volume && stringOf(fields.containerName) === '') {
    errors.push(fieldRequired(childPath(path, 'containerName'), ''));
  } else if (resource === '') {
    errors.push(fieldRequired(childPath(path, 'resource'), ''));
  } else if (
    !RESOURCE_FIELD_PATHS.includes(resource) &&
    !HUGE_PAGES_FIELD_PREFIXES.some((prefix) => resource.startsWith(prefix))
  ) {
    errors.push(fieldNotSupported(childPath(path, 'resource'), resource, RESOURCE_FIELD_PATHS));
  }
  errors.push(...validateDivisor(resource, fields.divisor, path));
  return errors;
}
