// batch/v1 Jobs and CronJobs.
import type { KubeObject } from '../../../../api/object.js';
import { utf8Length } from '../../../../api/selectors/go-text.js';
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  labelSelectorFromObject,
  SelectorError,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { GoRendered, goLabelSelector, goStringMap, OMITTED_VALUE } from '../go-rendered.js';
import {
  arrayOf,
  fieldsOf,
  isSet,
  type JsonObject,
  numberOf,
  objectOf,
  objectsOf,
  optionalNumber,
  optionalString,
  semanticEqual,
  stringMapOf,
  stringOf,
} from '../json.js';
import { isDns1123Label, isQualifiedName, nameIsDnsSubdomain } from '../names.js';
import {
  FIELD_IMMUTABLE,
  fieldDuplicate,
  fieldTooLong,
  fieldTooMany,
  validateImmutable,
  validateNonnegative,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { validatePodTemplateSpec } from '../pod/pod.js';
import { cronScheduleError, timeZoneLoadError } from './cron-schedule.js';

const MAX_PARALLELISM_FOR_INDEXED = 100000;
const MAX_FAILED_INDEXES = 100000;
const COMPLETIONS_SOFT_LIMIT = 100000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10000;
const MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS = 10000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_POD_CONDITION_PATTERNS = 20;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_POLICY_RULES = 20;
const FAILURE_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const EXIT_CODE_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

function goQuotedList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

/** validation.IsDomainPrefixedPath. */
function validateDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value === '') return [fieldRequired(path, '')];
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) {
    return [fieldInvalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const host = value.slice(0, slash);
  const rest = value.slice(slash + 1);
  const errors = nameIsDnsSubdomain(host, false).map((problem) => fieldInvalid(path, host, problem));
  if (!HTTP_PATH.test(rest)) {
    errors.push(
      fieldInvalid(
        path,
        rest,
        "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
      ),
    );
  }
  return errors;
}

/** parseIndexInterval / validateIndexesFormat: the number of indexes, or the error text. */
function indexesProblem(text: string, completions: number): { total: number } | { error: string } {
  if (text === '') return { total: 0 };
  let last: number | undefined;
  let total = 0;
  for (const interval of text.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) {
      return {
        error: `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`,
      };
    }
    const parse = (part: string) => (/^[+-]?[0-9]+$/.test(part) ? Number(part) : undefined);
    const x = parse(limits[0]!);
    if (x === undefined)
      return { error: `cannot convert string to integer for index: ${JSON.stringify(limits[0])}` };
    if (x >= completions) return { error: `too large index: ${JSON.stringify(limits[0])}` };
    let y = x;
    if (limits.length > 1) {
      const parsed = parse(limits[1]!);
      if (parsed === undefined)
        return { error: `cannot convert string to integer for index: ${JSON.stringify(limits[1])}` };
      if (parsed >= completions) return { error: `too large index: ${JSON.stringify(limits[1])}` };
      if (x >= parsed) return { error: `non-increasing order, previous: ${x}, current: ${parsed}` };
      y = parsed;
    }
    if (last !== undefined && last >= x)
      return { error: `non-increasing order, previous: ${last}, current: ${x}` };
    total += y - x + 1;
    last = y;
  }
  return { total };
}

function validatePodFailurePolicy(spec: JsonObject, path: string): FieldError[] {
  const policy = fieldsOf(spec.podFailurePolicy);
  const rules = objectsOf(policy.rules);
  const rulesPath = childPath(path, 'rules');
  const errors: FieldError[] = [];
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES)
    errors.push(fieldTooMany(rulesPath, rules.length, MAX_POD_FAILURE_POLICY_RULES));
  const templateSpec = fieldsOf(fieldsOf(spec.template).spec);
  const containerNames = new Set(
    [...objectsOf(templateSpec.containers), ...objectsOf(templateSpec.initContainers)].map((container) =>
      stringOf(container.name),
    ),
  );
  rules.forEach((rule, index) => {
    const rulePath = indexPath(rulesPath, index);
    const actionPath = childPath(rulePath, 'action');
    const action = stringOf(rule.action);
    if (action === '')
      errors.push(fieldRequired(actionPath, `valid values: ${goQuotedList(FAILURE_ACTIONS)}`));
    else if (action === 'FailIndex') {
      if (!isSet(spec.backoffLimitPerIndex))
        errors.push(fieldInvalid(actionPath, action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!FAILURE_ACTIONS.includes(action)) {
      errors.push(fieldNotSupported(actionPath, action, FAILURE_ACTIONS));
    }
    const onExitCodes = objectOf(rule.onExitCodes);
    const onConditions = objectsOf(rule.onPodConditions);
    if (onExitCodes !== undefined) {
      const exitPath = childPath(rulePath, 'onExitCodes');
      const operator = stringOf(onExitCodes.operator);
      if (operator === '') {
        errors.push(
          fieldRequired(
            childPath(exitPath, 'operator'),
            `valid values: ${goQuotedList(EXIT_CODE_OPERATORS)}`,
          ),
        );
      } else if (!EXIT_CODE_OPERATORS.includes(operator)) {
        errors.push(fieldNotSupported(childPath(exitPath, 'operator'), operator, EXIT_CODE_OPERATORS));
      }
      const containerName = optionalString(onExitCodes.containerName);
      if (containerName !== undefined && !containerNames.has(containerName)) {
        errors.push(
          fieldInvalid(
            childPath(exitPath, 'containerName'),
            containerName,
            'must be one of the container or initContainer names in the pod template',
          ),
        );
      }
      const values = arrayOf(onExitCodes.values).map(numberOf);
      const valuesPath = childPath(exitPath, 'values');
      if (values.length === 0)
        errors.push(
          fieldInvalid(valuesPath, new GoRendered('[]int32(nil)'), 'at least one value is required'),
        );
      else if (values.length > MAX_EXIT_CODE_VALUES)
        errors.push(fieldTooMany(valuesPath, values.length, MAX_EXIT_CODE_VALUES));
      const unique = new Set<number>();
      let ordered = true;
      values.forEach((value, valueIndex) => {
        const valuePath = indexPath(valuesPath, valueIndex);
        if (operator === 'In' && value === 0)
          errors.push(fieldInvalid(valuePath, value, 'must not be 0 for the In operator'));
        if (unique.has(value)) errors.push(fieldDuplicate(valuePath, value));
        else unique.add(value);
        if (valueIndex > 0 && values[valueIndex - 1]! > value) ordered = false;
      });
      if (!ordered)
        errors.push(
          fieldInvalid(valuesPath, new GoRendered(`[]int32{${values.join(', ')}}`), 'must be ordered'),
        );
    }
    if (onConditions.length > 0) {
      const conditionsPath = childPath(rulePath, 'onPodConditions');
      if (onConditions.length > MAX_POD_CONDITION_PATTERNS) {
        errors.push(fieldTooMany(conditionsPath, onConditions.length, MAX_POD_CONDITION_PATTERNS));
      }
      onConditions.forEach((pattern, patternIndex) => {
        const patternPath = indexPath(conditionsPath, patternIndex);
        const type = stringOf(pattern.type);
        for (const problem of isQualifiedName(type))
          errors.push(fieldInvalid(childPath(patternPath, 'type'), type, problem));
        const status = stringOf(pattern.status);
        if (status === '')
          errors.push(
            fieldRequired(
              childPath(patternPath, 'status'),
              `valid values: ${goQuotedList(CONDITION_STATUSES)}`,
            ),
          );
        else if (!CONDITION_STATUSES.includes(status)) {
          errors.push(fieldNotSupported(childPath(patternPath, 'status'), status, CONDITION_STATUSES));
        }
      });
    }
    if (onExitCodes !== undefined && onConditions.length > 0) {
      errors.push(
        fieldInvalid(
          rulePath,
          OMITTED_VALUE,
          'specifying both OnExitCodes and OnPodConditions is not supported',
        ),
      );
    }
    if (onExitCodes === undefined && onConditions.length === 0) {
      errors.push(
        fieldInvalid(
          rulePath,
          OMITTED_VALUE,
          'specifying one of OnExitCodes and OnPodConditions is required',
        ),
      );
    }
  });
  return errors;
}

function validateSuccessPolicy(spec: JsonObject, path: string): FieldError[] {
  const rules = objectsOf(fieldsOf(spec.successPolicy).rules);
  const rulesPath = childPath(path, 'rules');
  const errors: FieldError[] = [];
  if (rules.length === 0)
    errors.push(
      fieldRequired(rulesPath, 'at least one rules must be specified when the successPolicy is specified'),
    );
  if (rules.length > MAX_SUCCESS_POLICY_RULES)
    errors.push(fieldTooMany(rulesPath, rules.length, MAX_SUCCESS_POLICY_RULES));
  const completions = numberOf(spec.completions);
  rules.forEach((rule, index) => {
    const rulePath = indexPath(rulesPath, index);
    const indexes = optionalString(rule.succeededIndexes);
    const count = optionalNumber(rule.succeededCount);
    if (indexes === undefined && count === undefined) {
      errors.push(
        fieldRequired(rulePath, 'at least one of succeededCount or succeededIndexes must be specified'),
      );
    }
    let total = 0;
    if (indexes !== undefined) {
      const indexesPath = childPath(rulePath, 'succeededIndexes');
      if (utf8Length(indexes) > MAX_SUCCEEDED_INDEXES_LENGTH)
        errors.push(fieldTooLong(indexesPath, MAX_SUCCEEDED_INDEXES_LENGTH));
      const parsed = indexesProblem(indexes, completions);
      if ('error' in parsed)
        errors.push(fieldInvalid(indexesPath, indexes, `error parsing succeededIndexes: ${parsed.error}`));
      else total = parsed.total;
    }
    if (count !== undefined) {
      const countPath = childPath(rulePath, 'succeededCount');
      errors.push(...validateNonnegative(count, countPath));
      if (count > completions) {
        errors.push(
          fieldInvalid(
            countPath,
            count,
            `must be less than or equal to ${completions} (the number of specified completions)`,
          ),
        );
      }
      if (indexes !== undefined && count > total) {
        errors.push(
          fieldInvalid(
            countPath,
            count,
            `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`,
          ),
        );
      }
    }
  });
  return errors;
}

/** validateJobSpec (shared by Jobs and CronJob job templates). */
function validateJobSpecFields(spec: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const optional = (key: string) => {
    const value = optionalNumber(spec[key]);
    if (value !== undefined) errors.push(...validateNonnegative(value, childPath(path, key)));
  };
  for (const key of [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
    'backoffLimitPerIndex',
  ]) {
    optional(key);
  }
  const parallelism = optionalNumber(spec.parallelism);
  const completions = optionalNumber(spec.completions);
  const perIndex = optionalNumber(spec.backoffLimitPerIndex);
  const maxFailed = optionalNumber(spec.maxFailedIndexes);
  if (maxFailed !== undefined) {
    errors.push(...validateNonnegative(maxFailed, childPath(path, 'maxFailedIndexes')));
    if (perIndex === undefined)
      errors.push(
        fieldRequired(childPath(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'),
      );
  }
  const managedBy = optionalString(spec.managedBy);
  if (managedBy !== undefined) {
    errors.push(...validateDomainPrefixedPath(childPath(path, 'managedBy'), managedBy));
    if (utf8Length(managedBy) > MAX_MANAGED_BY_LENGTH)
      errors.push(fieldTooLong(childPath(path, 'managedBy'), MAX_MANAGED_BY_LENGTH));
  }
  const mode = optionalString(spec.completionMode);
  if (mode !== undefined) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') {
      errors.push(fieldNotSupported(childPath(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
    }
    if (mode === 'Indexed') {
      if (completions === undefined)
        errors.push(fieldRequired(childPath(path, 'completions'), 'when completion mode is Indexed'));
      if (parallelism !== undefined && parallelism > MAX_PARALLELISM_FOR_INDEXED) {
        errors.push(
          fieldInvalid(
            childPath(path, 'parallelism'),
            parallelism,
            `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED} when completion mode is Indexed`,
          ),
        );
      }
      if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
        errors.push(
          fieldInvalid(
            childPath(path, 'maxFailedIndexes'),
            maxFailed,
            'must be less than or equal to completions',
          ),
        );
      }
      if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES) {
        errors.push(
          fieldInvalid(
            childPath(path, 'maxFailedIndexes'),
            maxFailed,
            `must be less than or equal to ${MAX_FAILED_INDEXES}`,
          ),
        );
      }
      if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && perIndex !== undefined) {
        const suffix = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
        if (maxFailed === undefined) {
          errors.push(
            fieldRequired(
              childPath(path, 'maxFailedIndexes'),
              `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`,
            ),
          );
        }
        if (parallelism !== undefined && parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
          errors.push(
            fieldInvalid(
              childPath(path, 'parallelism'),
              parallelism,
              `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} ${suffix}`,
            ),
          );
        }
        if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS) {
          errors.push(
            fieldInvalid(
              childPath(path, 'maxFailedIndexes'),
              maxFailed,
              `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS} ${suffix}`,
            ),
          );
        }
      }
    }
  }
  if (mode === undefined || mode === 'NonIndexed') {
    if (perIndex !== undefined)
      errors.push(
        fieldInvalid(childPath(path, 'backoffLimitPerIndex'), perIndex, 'requires indexed completion mode'),
      );
    if (maxFailed !== undefined)
      errors.push(
        fieldInvalid(childPath(path, 'maxFailedIndexes'), maxFailed, 'requires indexed completion mode'),
      );
  }
  if (isSet(spec.podFailurePolicy))
    errors.push(...validatePodFailurePolicy(spec, childPath(path, 'podFailurePolicy')));
  if (isSet(spec.successPolicy)) {
    if (mode !== 'Indexed') {
      errors.push(
        fieldInvalid(
          childPath(path, 'successPolicy'),
          new GoRendered('batch.SuccessPolicy{...}'),
          'requires indexed completion mode',
        ),
      );
    } else {
      errors.push(...validateSuccessPolicy(spec, childPath(path, 'successPolicy')));
    }
  }
  const replacement = optionalString(spec.podReplacementPolicy);
  if (replacement !== undefined) {
    if (isSet(spec.podFailurePolicy)) {
      if (replacement !== 'Failed')
        errors.push(fieldNotSupported(childPath(path, 'podReplacementPolicy'), replacement, ['Failed']));
    } else if (!REPLACEMENT_POLICIES.includes(replacement)) {
      errors.push(
        fieldNotSupported(childPath(path, 'podReplacementPolicy'), replacement, REPLACEMENT_POLICIES),
      );
    }
  }
  errors.push(...validatePodTemplateSpec(spec.template, childPath(path, 'template')));
  const restartPath = childPath(childPath(childPath(path, 'template'), 'spec'), 'restartPolicy');
  const restartPolicy = stringOf(fieldsOf(fieldsOf(spec.template).spec).restartPolicy);
  if (restartPolicy === 'Always' || restartPolicy === '') {
    errors.push(fieldRequired(restartPath, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errors.push(fieldNotSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  } else if (isSet(spec.podFailurePolicy) && restartPolicy !== 'Never') {
    errors.push(
      fieldInvalid(
        restartPath,
        restartPolicy,
        'only "Never" is supported when podFailurePolicy is specified',
      ),
    );
  }
  return errors;
}

const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const JOB_NAME = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID = 'controller-uid';
const LEGACY_JOB_NAME = 'job-name';

function requireLabel(
  labels: Record<string, string>,
  key: string,
  expected: string,
  allLabels: unknown,
): FieldError[] {
  const path = indexPath('spec.template.metadata.labels', key);
  if (!Object.hasOwn(labels, key)) return [fieldRequired(path, `must be '${expected}'`)];
  if (labels[key] !== expected) return [fieldInvalid(path, goStringMap(allLabels), `must be '${expected}'`)];
  return [];
}

/** validateGeneratedSelector: the selector and labels the Job strategy generates (unless manualSelector). */
function validateGeneratedSelector(job: KubeObject): FieldError[] {
  const spec = fieldsOf(job.spec);
  if (spec.manualSelector === true || !isSet(spec.selector)) return [];
  const meta = fieldsOf(job.metadata);
  const uid = stringOf(meta.uid);
  const name = stringOf(meta.name);
  const errors: FieldError[] = [];
  if (uid === '') errors.push(fieldRequired('metadata.uid', ''));
  const rawLabels = fieldsOf(fieldsOf(spec.template).metadata).labels;
  const labels = stringMapOf(rawLabels);
  errors.push(...requireLabel(labels, LEGACY_CONTROLLER_UID, uid, rawLabels));
  errors.push(...requireLabel(labels, LEGACY_JOB_NAME, name, rawLabels));
  errors.push(...requireLabel(labels, CONTROLLER_UID, uid, rawLabels));
  errors.push(...requireLabel(labels, JOB_NAME, name, rawLabels));
  const expected = {
    [CONTROLLER_UID]: uid,
    [JOB_NAME]: name,
    [LEGACY_CONTROLLER_UID]: uid,
    [LEGACY_JOB_NAME]: name,
  };
  try {
    if (!labelSelectorFromObject(objectOf(spec.selector)).matches(expected)) {
      errors.push(
        fieldInvalid('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'),
      );
    }
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
  }
  return errors;
}

/** ValidateJobSpec. */
function validateJobSpec(spec: JsonObject): FieldError[] {
  const errors = validateJobSpecFields(spec, 'spec');
  if (!isSet(spec.selector)) errors.push(fieldRequired('spec.selector', ''));
  else errors.push(...validateLabelSelectorObject(objectOf(spec.selector), 'spec.selector'));
  try {
    const selector = labelSelectorFromObject(objectOf(spec.selector));
    const rawLabels = fieldsOf(fieldsOf(spec.template).metadata).labels;
    if (!selector.matches(stringMapOf(rawLabels))) {
      errors.push(
        fieldInvalid(
          'spec.template.metadata.labels',
          goStringMap(rawLabels),
          '`selector` does not match template `labels`',
        ),
      );
    }
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
  }
  return errors;
}

/** ValidateJob (the strategy has generated the selector and pod labels, and set metadata.uid). */
export function validateJob(job: KubeObject): FieldError[] {
  const spec = fieldsOf(job.spec);
  const errors = validateObjectMeta(job.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  errors.push(...validateGeneratedSelector(job));
  errors.push(...validateJobSpec(spec));
  const completions = optionalNumber(spec.completions);
  if (stringOf(spec.completionMode) === 'Indexed' && completions !== undefined && completions > 0) {
    const name = stringOf(fieldsOf(job.metadata).name);
    const hostname = `${name}-${completions - 1}`;
    if (isDns1123Label(hostname).length > 0) {
      errors.push(
        fieldInvalid(
          'metadata.name',
          name,
          `will not able to create pod with invalid DNS label: ${hostname}`,
        ),
      );
    }
  }
  return errors;
}

/**
 * The old template with the scheduling directives of the new one, for Jobs that are suspended and
 * never started (AllowMutableSchedulingDirectives): only those may change then.
 */
function schedulingMungedTemplate(spec: JsonObject, old: KubeObject): unknown {
  const oldSpec = fieldsOf(old.spec);
  const suspended = oldSpec.suspend === true && !isSet(fieldsOf(old.status).startTime);
  if (!suspended) return oldSpec.template;
  const template = structuredClone(fieldsOf(oldSpec.template));
  const next = fieldsOf(spec.template);
  const nextSpec = fieldsOf(next.spec);
  const templateSpec = fieldsOf(template.spec);
  const affinity = objectOf(templateSpec.affinity);
  const nextAffinity = objectOf(nextSpec.affinity);
  if (nextAffinity === undefined && affinity !== undefined) {
    delete affinity.nodeAffinity;
    if (Object.keys(affinity).length === 0) delete templateSpec.affinity;
  } else if (nextAffinity !== undefined && affinity === undefined) {
    templateSpec.affinity = { nodeAffinity: nextAffinity.nodeAffinity };
  } else if (nextAffinity !== undefined && affinity !== undefined) {
    affinity.nodeAffinity = nextAffinity.nodeAffinity;
  }
  templateSpec.nodeSelector = nextSpec.nodeSelector;
  templateSpec.tolerations = nextSpec.tolerations;
  templateSpec.schedulingGates = nextSpec.schedulingGates;
  const meta = fieldsOf(template.metadata);
  const nextMeta = fieldsOf(next.metadata);
  meta.annotations = nextMeta.annotations;
  meta.labels = nextMeta.labels;
  template.metadata = meta;
  template.spec = templateSpec;
  return template;
}

/** ValidateJobUpdate (elastic indexed jobs are on in 1.33; scheduling directives stay immutable here). */
export function validateJobUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const spec = fieldsOf(job.spec);
  const oldSpec = fieldsOf(old.spec);
  const errors = validateObjectMetaUpdate(job.metadata, old.metadata);
  errors.push(...validateJobSpec(spec));
  const indexed = stringOf(spec.completionMode) === 'Indexed';
  if (!semanticEqual(spec.completions, oldSpec.completions)) {
    if (!indexed)
      errors.push(...validateImmutable(spec.completions, oldSpec.completions, 'spec.completions'));
    else if (isSet(spec.completions) && numberOf(spec.completions) !== numberOf(spec.parallelism)) {
      errors.push(
        fieldInvalid(
          'spec.completions',
          numberOf(spec.completions),
          'can only be modified in tandem with spec.parallelism',
        ),
      );
    }
  }
  if (!semanticEqual(spec.selector, oldSpec.selector)) {
    errors.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), FIELD_IMMUTABLE));
  }
  if (!semanticEqual(spec.template, schedulingMungedTemplate(spec, old))) {
    errors.push(fieldInvalid('spec.template', new GoRendered('core.PodTemplateSpec{...}'), FIELD_IMMUTABLE));
  }
  for (const key of [
    'completionMode',
    'podFailurePolicy',
    'backoffLimitPerIndex',
    'managedBy',
    'successPolicy',
  ]) {
    if (!semanticEqual(spec[key], oldSpec[key]))
      errors.push(fieldInvalid(`spec.${key}`, spec[key] ?? null, FIELD_IMMUTABLE));
  }
  return errors;
}

/** validateTimeZone. */
function validateTimeZone(timeZone: string | undefined, path: string): FieldError[] {
  if (timeZone === undefined) return [];
  if (timeZone === '') return [fieldInvalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part)) {
      return [fieldInvalid(path, timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const errors: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') {
    errors.push(
      fieldInvalid(
        path,
        timeZone,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    );
  }
  const problem = timeZoneLoadError(timeZone);
  if (problem !== undefined) errors.push(fieldInvalid(path, timeZone, problem));
  return errors;
}

function validateCronJobSpec(spec: JsonObject, oldSpec: JsonObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const schedule = stringOf(spec.schedule);
  if (schedule === '') {
    errors.push(fieldRequired('spec.schedule', ''));
  } else {
    const problem = cronScheduleError(schedule);
    if (problem !== undefined) errors.push(fieldInvalid('spec.schedule', schedule, problem));
    const allowTz = oldSpec !== undefined && stringOf(oldSpec.schedule).includes('TZ');
    if (allowTz && schedule.includes('TZ') && isSet(spec.timeZone)) {
      errors.push(
        fieldInvalid(
          'spec.schedule',
          schedule,
          'cannot use both timeZone field and TZ or CRON_TZ in schedule',
        ),
      );
    } else if (!allowTz && schedule.includes('TZ')) {
      errors.push(
        fieldInvalid(
          'spec.schedule',
          schedule,
          'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
        ),
      );
    }
  }
  const deadline = optionalNumber(spec.startingDeadlineSeconds);
  if (deadline !== undefined) errors.push(...validateNonnegative(deadline, 'spec.startingDeadlineSeconds'));
  const timeZone = optionalString(spec.timeZone);
  if (oldSpec === undefined || optionalString(oldSpec.timeZone) !== timeZone)
    errors.push(...validateTimeZone(timeZone, 'spec.timeZone'));
  const policy = stringOf(spec.concurrencyPolicy);
  if (policy === '') errors.push(fieldRequired('spec.concurrencyPolicy', ''));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) {
    errors.push(fieldNotSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  }
  const jobTemplate = fieldsOf(spec.jobTemplate);
  const jobSpec = fieldsOf(jobTemplate.spec);
  errors.push(...validateJobSpecFields(jobSpec, 'spec.jobTemplate.spec'));
  if (isSet(jobSpec.selector)) {
    errors.push(
      fieldInvalid(
        'spec.jobTemplate.spec.selector',
        goLabelSelector(jobSpec.selector),
        '`selector` will be auto-generated',
      ),
    );
  }
  if (jobSpec.manualSelector === true) {
    errors.push(fieldNotSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  }
  for (const key of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    const value = optionalNumber(spec[key]);
    if (value !== undefined) errors.push(...validateNonnegative(value, `spec.${key}`));
  }
  return errors;
}

/** ValidateCronJobCreate: names leave room for the 11-character suffix of the Jobs it creates. */
export function validateCronJob(cronJob: KubeObject): FieldError[] {
  const errors = validateObjectMeta(cronJob.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  errors.push(...validateCronJobSpec(fieldsOf(cronJob.spec), undefined));
  const name = stringOf(fieldsOf(cronJob.metadata).name);
  if (utf8Length(name) > 52)
    errors.push(fieldInvalid('metadata.name', name, 'must be no more than 52 characters'));
  return errors;
}

export function validateCronJobUpdate(cronJob: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(cronJob.metadata, old.metadata),
    ...validateCronJobSpec(fieldsOf(cronJob.spec), fieldsOf(old.spec)),
  ];
}
