// Resource names and quantities (pkg/apis/core/helper and the resource checks of core validation):
// which names are standard, which must be integers, and requests-vs-limits rules.
import { Quantity } from '../../../api/quantity.js';
import { isExtendedResourceName, isNativeResource } from '../../../api/resource-names.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
} from '../../../api/selectors/index.js';
import { isJsonObject, objectsOf, stringOf } from './json.js';
import { isDns1123Label, isQualifiedName } from './names.js';
import { fieldDuplicate, fieldNotFound, IS_NEGATIVE } from './object-meta.js';

const HUGE_PAGES_PREFIX = 'hugepages-';
const REQUESTS_HUGE_PAGES_PREFIX = 'requests.hugepages-';

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith(HUGE_PAGES_PREFIX);
}

function isQuotaHugePageResourceName(name: string): boolean {
  return name.startsWith(HUGE_PAGES_PREFIX) || name.startsWith(REQUESTS_HUGE_PAGES_PREFIX);
}

export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name);
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);

const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);

const INTEGER_RESOURCES = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

export function isStandardQuotaResourceName(name: string): boolean {
  return STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
}

function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
}

function isIntegerResourceName(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
}

/** validateResourceName. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errors = isQualifiedName(name).map((problem) => fieldInvalid(path, name, problem));
  if (errors.length > 0) return errors;
  if (!name.includes('/') && !isStandardResourceName(name)) {
    return [fieldInvalid(path, name, 'must be a standard resource type or fully qualified')];
  }
  return [];
}

/** validateContainerResourceName. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errors = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) {
      return [...errors, fieldInvalid(path, name, 'must be a standard resource for containers')];
    }
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    return [...errors, fieldInvalid(path, name, "doesn't follow extended resource name standard")];
  }
  return errors;
}

/** ValidateResourceQuotaResourceName. */
export function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errors = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) {
    return [...errors, fieldInvalid(path, name, 'must be a standard resource for quota')];
  }
  return errors;
}

/**
 * A quantity from decoded JSON. Unparseable text is a decode error in kube-apiserver (400, before
 * validation); here it yields undefined and the caller reports it (see quantityDecodeErrors).
 */
export function quantityOf(value: unknown): Quantity | undefined {
  return Quantity.tryFromJson(value);
}

/** ValidateNonnegativeQuantity. */
export function validateNonnegativeQuantity(quantity: Quantity, path: string): FieldError[] {
  return quantity.sign() < 0 ? [fieldInvalid(path, quantity.toString(), IS_NEGATIVE)] : [];
}

/** ValidatePositiveQuantityValue. */
export function validatePositiveQuantity(quantity: Quantity, path: string): FieldError[] {
  return quantity.sign() <= 0 ? [fieldInvalid(path, quantity.toString(), 'must be greater than zero')] : [];
}

/** ValidateResourceQuantityValue: non-negative, and whole for count-like and extended resources. */
export function validateResourceQuantityValue(name: string, quantity: Quantity, path: string): FieldError[] {
  const errors = validateNonnegativeQuantity(quantity, path);
  if (isIntegerResourceName(name) && quantity.milliValue() % 1000n !== 0n) {
    errors.push(fieldInvalid(path, quantity.toString(), 'must be an integer'));
  }
  return errors;
}

/** A ResourceList as quantities; entries that do not parse are left out. */
export function resourceListOf(value: unknown): Map<string, Quantity> {
  const list = new Map<string, Quantity>();
  if (!isJsonObject(value)) return list;
  for (const [name, raw] of Object.entries(value)) {
    const quantity = quantityOf(raw);
    if (quantity !== undefined) list.set(name, quantity);
  }
  return list;
}

function hugePageValueProblem(name: string, quantity: Quantity): string | undefined {
  const pageSize = Quantity.tryFromJson(name.slice(HUGE_PAGES_PREFIX.length));
  const divisible =
    pageSize !== undefined &&
    pageSize.sign() > 0 &&
    pageSize.milliValue() % 1000n === 0n &&
    quantity.value() % pageSize.value() === 0n;
  return divisible ? undefined : `${quantity.toString()} is not positive integer multiple of ${name}`;
}

/** ValidateContainerResourceRequirements (a container's `resources`). */
export function validateContainerResources(
  resources: unknown,
  podClaimNames: ReadonlySet<string>,
  path: string,
): FieldError[] {
  const fields = isJsonObject(resources) ? resources : {};
  const errors: FieldError[] = [];
  const limitsPath = childPath(path, 'limits');
  const requestsPath = childPath(path, 'requests');
  const limits = resourceListOf(fields.limits);
  const requests = resourceListOf(fields.requests);
  let limitsHaveCpuOrMemory = false;
  let requestsHaveCpuOrMemory = false;
  let hugePages = false;
  for (const [name, quantity] of limits) {
    const entryPath = indexPath(limitsPath, name);
    errors.push(...validateContainerResourceName(name, entryPath));
    errors.push(...validateResourceQuantityValue(name, quantity, entryPath));
    if (isHugePageResourceName(name)) {
      hugePages = true;
      const problem = hugePageValueProblem(name, quantity);
      if (problem !== undefined) errors.push(fieldInvalid(entryPath, quantity.toString(), problem));
    }
    if (name === 'cpu' || name === 'memory') limitsHaveCpuOrMemory = true;
  }
  for (const [name, quantity] of requests) {
    const entryPath = indexPath(requestsPath, name);
    errors.push(...validateContainerResourceName(name, entryPath));
    errors.push(...validateResourceQuantityValue(name, quantity, entryPath));
    const limit = limits.get(name);
    if (limit !== undefined) {
      if (quantity.cmp(limit) !== 0 && !isOvercommitAllowed(name)) {
        errors.push(
          fieldInvalid(
            requestsPath,
            quantity.toString(),
            `must be equal to ${name} limit of ${limit.toString()}`,
          ),
        );
      } else if (quantity.cmp(limit) > 0) {
        errors.push(
          fieldInvalid(
            requestsPath,
            quantity.toString(),
            `must be less than or equal to ${name} limit of ${limit.toString()}`,
          ),
        );
      }
    } else if (!isOvercommitAllowed(name)) {
      errors.push(fieldRequired(limitsPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) {
      hugePages = true;
      const problem = hugePageValueProblem(name, quantity);
      if (problem !== undefined) errors.push(fieldInvalid(entryPath, quantity.toString(), problem));
    }
    if (name === 'cpu' || name === 'memory') requestsHaveCpuOrMemory = true;
  }
  if (!limitsHaveCpuOrMemory && !requestsHaveCpuOrMemory && hugePages) {
    errors.push(fieldForbidden(path, 'HugePages require cpu or memory'));
  }
  errors.push(...validateResourceClaimNames(fields.claims, podClaimNames, childPath(path, 'claims')));
  return errors;
}

function validateResourceClaimNames(
  claims: unknown,
  podClaimNames: ReadonlySet<string>,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  objectsOf(claims).forEach((claim, index) => {
    const itemPath = indexPath(path, index);
    const name = stringOf(claim.name);
    if (name === '') {
      errors.push(fieldRequired(itemPath, ''));
      return;
    }
    if (seen.has(name)) {
      errors.push(fieldDuplicate(itemPath, name));
    } else {
      const request = stringOf(claim.request);
      let key = name;
      if (request !== '') {
        for (const problem of isDns1123Label(request)) {
          errors.push(fieldInvalid(childPath(itemPath, 'request'), request, problem));
        }
        key += `/${request}`;
      }
      if (seen.has(key)) {
        errors.push(fieldDuplicate(itemPath, key));
      } else if (request === '') {
        for (const existing of seen) {
          const slash = existing.indexOf('/');
          if (slash >= 0 && existing.slice(0, slash) === name) errors.push(fieldDuplicate(itemPath, name));
        }
      }
      seen.add(key);
    }
    if (!podClaimNames.has(name)) {
      const known = [...podClaimNames].sort();
      const error = fieldNotFound(itemPath, name);
      error.detail =
        known.length === 0
          ? 'must be one of the names in pod.spec.resourceClaims which is empty'
          : `must be one of the names in pod.spec.resourceClaims: ${known.join(', ')}`;
      errors.push(error);
    }
  });
  return errors;
}
