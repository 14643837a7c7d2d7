// apiregistration.k8s.io/v1 APIService: kube-aggregator's defaults (a service port of 443) and its
// validation (the name is `<version>.<group>`, priorities in range, a caBundle or
// insecureSkipTLSVerify only with a service, never both).
import type { KubeObject } from '../../../../api/object.js';
import {
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../../api/selectors/index.js';
import { booleanOf, fieldsOf, numberOf, objectOf, stringOf } from '../json.js';
import { isDns1035Label, isDns1123Subdomain, isValidPortNumber, nameIsPathSegment } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

/** SetDefaults_ServiceReference: an unset port is 443. */
export function defaultApiService(apiService: KubeObject): void {
  const service = objectOf(fieldsOf(apiService.spec).service);
  if (service && service.port === undefined) service.port = 443;
}

function validateSpec(apiService: KubeObject): FieldError[] {
  const spec = fieldsOf(apiService.spec);
  const group = stringOf(spec.group);
  const version = stringOf(spec.version);
  const errors: FieldError[] = [];
  if (group === '' && version !== 'v1') {
    errors.push(fieldRequired('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  }
  if (group !== '') {
    for (const problem of isDns1123Subdomain(group)) errors.push(fieldInvalid('spec.group', group, problem));
  }
  for (const problem of isDns1035Label(version)) errors.push(fieldInvalid('spec.version', version, problem));
  const groupPriority = numberOf(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000) {
    errors.push(
      fieldInvalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'),
    );
  }
  const versionPriority = numberOf(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000) {
    errors.push(fieldInvalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  }
  const caBundle = stringOf(spec.caBundle);
  const insecure = booleanOf(spec.insecureSkipTLSVerify);
  const service = objectOf(spec.service);
  if (!service) {
    if (caBundle !== '') {
      const bytes = Buffer.from(caBundle, 'base64').length;
      errors.push(
        fieldInvalid('spec.caBundle', `${bytes} bytes`, 'local APIServices may not have a caBundle'),
      );
    }
    if (insecure) {
      errors.push(
        fieldInvalid(
          'spec.insecureSkipTLSVerify',
          true,
          'local APIServices may not have insecureSkipTLSVerify',
        ),
      );
    }
    return errors;
  }
  if (stringOf(service.namespace) === '') errors.push(fieldRequired('spec.service.namespace', ''));
  if (stringOf(service.name) === '') errors.push(fieldRequired('spec.service.name', ''));
  const port = numberOf(service.port);
  const portProblems = isValidPortNumber(port);
  if (portProblems.length > 0) {
    errors.push(fieldInvalid('spec.service.port', port, `port is not valid: ${portProblems.join(', ')}`));
  }
  if (insecure && caBundle !== '') {
    errors.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errors;
}

/** The name must be a path segment and equal `spec.version + "." + spec.group`. */
function nameRule(apiService: KubeObject) {
  const spec = fieldsOf(apiService.spec);
  const required = `${stringOf(spec.version)}.${stringOf(spec.group)}`;
  return (name: string, prefix: boolean): string[] => {
    const problems = nameIsPathSegment(name, prefix);
    if (problems.length > 0) return problems;
    return name === required ? [] : [`must be \`spec.version+"."+spec.group\`: "${required}"`];
  };
}

export function validateApiService(apiService: KubeObject): FieldError[] {
  const meta = validateObjectMeta(apiService.metadata, {
    namespaced: false,
    name: nameRule(apiService),
    coreFinalizers: false,
  });
  return [...meta, ...validateSpec(apiService)];
}

export function validateApiServiceUpdate(
  apiService: KubeObject,
  old: KubeObject,
  subresource: string,
): FieldError[] {
  const meta = validateObjectMetaUpdate(apiService.metadata, old.metadata, 'metadata', false);
  // The status strategy checks only the object's metadata and the conditions' statuses.
  if (subresource === 'status') return [...meta, ...validateStatus(apiService)];
  return [...meta, ...validateSpec(apiService)];
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** ValidateAPIServiceStatus: each condition's status is one of True, False, Unknown. */
function validateStatus(apiService: KubeObject): FieldError[] {
  const conditions = fieldsOf(apiService.status).conditions;
  if (!Array.isArray(conditions)) return [];
  const errors: FieldError[] = [];
  conditions.forEach((condition, index) => {
    const status = stringOf(fieldsOf(condition).status);
    if (!CONDITION_STATUSES.includes(status)) {
      errors.push(fieldNotSupported(`status.conditions[${index}].status`, status, CONDITION_STATUSES));
    }
  });
  return errors;
}
