// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfiguration
// (pkg/apis/admissionregistration/validation: validateMutatingWebhookConfiguration,
// validateValidatingWebhookConfiguration, validateWebhook; k8s.io/apiserver/pkg/util/webhook
// ValidateWebhookURL and ValidateWebhookService) and their v1 defaults (SetDefaults_*Webhook,
// SetDefaults_ServiceReference, SetDefaults_Rule).
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  type LabelSelectorObject,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { arrayOf, fieldsOf, isSet, type JsonObject, objectOf, stringOf, stringsOf } from '../json.js';
import { isDns1123Subdomain, nameIsDnsSubdomain } from '../names.js';
import { fieldDuplicate, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { pathSegmentProblems, validateNamedRule } from './match-resources.js';
import { validateMatchConditions } from './validating-admission-policy.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const URL_FORM = '; desired format: https://host[/path]';

/** IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function validateFullyQualifiedName(path: string, value: string): FieldError[] {
  if (value === '') return [fieldRequired(path, '')];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const problems = isDns1123Subdomain(name);
  if (problems.length > 0) return [fieldInvalid(path, name, problems.join(','))];
  if (name.split('.').length < 3)
    return [fieldInvalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** ValidateWebhookURL with https forced. */
function validateUrl(path: string, text: string): FieldError[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    return [fieldRequired(path, `url must be a valid URL: ${(error as Error).message}${URL_FORM}`)];
  }
  const errors: FieldError[] = [];
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'https')
    errors.push(fieldInvalid(path, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (url.host === '') errors.push(fieldInvalid(path, url.host, `host must be specified${URL_FORM}`));
  if (url.username !== '' || url.password !== '') {
    const user = url.password === '' ? url.username : `${url.username}:${url.password}`;
    errors.push(fieldInvalid(path, user, 'user information is not permitted in the URL'));
  }
  if (url.hash !== '')
    errors.push(fieldInvalid(path, url.hash.slice(1), 'fragments are not permitted in the URL'));
  if (url.search !== '')
    errors.push(fieldInvalid(path, url.search.slice(1), 'query parameters are not permitted in the URL'));
  return errors;
}

/** ValidateWebhookService. */
function validateService(path: string, service: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  if (stringOf(service.name) === '')
    errors.push(fieldRequired(childPath(path, 'name'), 'service name is required'));
  if (stringOf(service.namespace) === '')
    errors.push(fieldRequired(childPath(path, 'namespace'), 'service namespace is required'));
  const port = typeof service.port === 'number' ? service.port : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errors.push(
      fieldInvalid(
        childPath(path, 'port'),
        port,
        'port is not valid: must be between 1 and 65535, inclusive',
      ),
    );
  const servicePath = stringOf(service.path);
  if (isSet(service.path) && servicePath !== '') {
    const at = childPath(path, 'path');
    if (!servicePath.startsWith('/')) errors.push(fieldInvalid(at, servicePath, "must start with a '/'"));
    else if (servicePath !== '/') {
      const trimmed = servicePath.slice(1);
      const segments = (trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed).split('/');
      segments.forEach((segment, index) => {
        if (segment === '') errors.push(fieldInvalid(at, servicePath, `segment[${index}] may not be empty`));
        else
          for (const problem of isDns1123Subdomain(segment))
            errors.push(fieldInvalid(at, servicePath, `segment[${index}]: ${problem}`));
      });
    }
  }
  return errors;
}

function validateClientConfig(path: string, config: JsonObject): FieldError[] {
  const hasUrl = isSet(config.url);
  const hasService = isSet(config.service);
  if (hasUrl === hasService) return [fieldRequired(path, 'exactly one of url or service is required')];
  if (hasUrl) return validateUrl(childPath(path, 'url'), stringOf(config.url));
  return validateService(childPath(path, 'service'), fieldsOf(config.service));
}

function validateWebhook(hook: JsonObject, path: string, mutating: boolean): FieldError[] {
  const errors = validateFullyQualifiedName(childPath(path, 'name'), stringOf(hook.name));
  arrayOf(hook.rules).forEach((rule, index) => {
    const at = indexPath(childPath(path, 'rules'), index);
    // A webhook's rules have no resourceNames: the named-rule checks cover the rest.
    errors.push(...validateNamedRule({ ...fieldsOf(rule), resourceNames: undefined } as JsonObject, at));
  });
  if (isSet(hook.failurePolicy) && !FAILURE_POLICIES.includes(stringOf(hook.failurePolicy)))
    errors.push(
      fieldNotSupported(childPath(path, 'failurePolicy'), stringOf(hook.failurePolicy), FAILURE_POLICIES),
    );
  if (isSet(hook.matchPolicy) && !MATCH_POLICIES.includes(stringOf(hook.matchPolicy)))
    errors.push(
      fieldNotSupported(childPath(path, 'matchPolicy'), stringOf(hook.matchPolicy), MATCH_POLICIES),
    );
  if (!isSet(hook.sideEffects))
    errors.push(
      fieldRequired(childPath(path, 'sideEffects'), `must specify one of ${SIDE_EFFECTS.join(', ')}`),
    );
  else if (!SIDE_EFFECTS.includes(stringOf(hook.sideEffects)))
    errors.push(fieldNotSupported(childPath(path, 'sideEffects'), stringOf(hook.sideEffects), SIDE_EFFECTS));
  if (isSet(hook.timeoutSeconds)) {
    const timeout = hook.timeoutSeconds as number;
    if (typeof timeout !== 'number' || timeout < 1 || timeout > 30)
      errors.push(
        fieldInvalid(
          childPath(path, 'timeoutSeconds'),
          timeout,
          'the timeout value must be between 1 and 30 seconds',
        ),
      );
  }
  if (
    mutating &&
    isSet(hook.reinvocationPolicy) &&
    !REINVOCATION_POLICIES.includes(stringOf(hook.reinvocationPolicy))
  )
    errors.push(
      fieldNotSupported(
        childPath(path, 'reinvocationPolicy'),
        stringOf(hook.reinvocationPolicy),
        REINVOCATION_POLICIES,
      ),
    );
  const versions = stringsOf(hook.admissionReviewVersions);
  const versionsPath = childPath(path, 'admissionReviewVersions');
  if (versions.length === 0)
    errors.push(fieldRequired(versionsPath, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
  else {
    const seen = new Set<string>();
    versions.forEach((version, index) => {
      if (seen.has(version)) errors.push(fieldDuplicate(indexPath(versionsPath, index), version));
      seen.add(version);
      for (const problem of pathSegmentProblems(version))
        errors.push(fieldInvalid(indexPath(versionsPath, index), version, problem));
    });
    if (!versions.some((version) => REVIEW_VERSIONS.includes(version)))
      errors.push(
        fieldInvalid(versionsPath, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`),
      );
  }
  for (const selector of ['namespaceSelector', 'objectSelector'] as const)
    if (isSet(hook[selector]))
      errors.push(
        ...validateLabelSelectorObject(hook[selector] as LabelSelectorObject, childPath(path, selector)),
      );
  errors.push(...validateClientConfig(childPath(path, 'clientConfig'), fieldsOf(hook.clientConfig)));
  errors.push(
    ...validateMatchConditions(arrayOf(hook.matchConditions), false, childPath(path, 'matchConditions')),
  );
  return errors;
}

function validateWebhooks(configuration: KubeObject, mutating: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  arrayOf((configuration as JsonObject).webhooks).forEach((value, index) => {
    const hook = fieldsOf(value);
    const at = indexPath('webhooks', index);
    errors.push(...validateWebhook(hook, at, mutating));
    const name = stringOf(hook.name);
    if (name !== '' && names.has(name)) errors.push(fieldDuplicate(childPath(at, 'name'), name));
    names.add(name);
  });
  return errors;
}

function configurationRules(mutating: boolean) {
  return {
    validateCreate: (configuration: KubeObject): FieldError[] => [
      ...validateObjectMeta(configuration.metadata, { namespaced: false, name: nameIsDnsSubdomain }),
      ...validateWebhooks(configuration, mutating),
    ],
    validateUpdate: (configuration: KubeObject, old: KubeObject): FieldError[] => [
      ...validateObjectMetaUpdate(configuration.metadata, old.metadata),
      ...validateWebhooks(configuration, mutating),
    ],
    defaults: (configuration: KubeObject): void => {
      for (const value of arrayOf((configuration as JsonObject).webhooks)) {
        const hook = objectOf(value);
        if (hook === undefined) continue;
        hook.failurePolicy ??= 'Fail';
        hook.matchPolicy ??= 'Equivalent';
        hook.namespaceSelector ??= {};
        hook.objectSelector ??= {};
        hook.timeoutSeconds ??= 10;
        if (mutating) hook.reinvocationPolicy ??= 'Never';
        for (const rule of arrayOf(hook.rules))
          if (typeof rule === 'object' && rule !== null) (rule as JsonObject).scope ??= '*';
        const service = objectOf(objectOf(hook.clientConfig)?.service);
        if (service !== undefined) service.port ??= 443;
      }
    },
  };
}

export const mutatingWebhookConfigurationRules = configurationRules(true);
export const validatingWebhookConfigurationRules = configurationRules(false);
