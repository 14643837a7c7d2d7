// autoscaling/v2 HorizontalPodAutoscalers (HPAScaleToZero is off in 1.33: minReplicas ≥ 1).
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import {
  fieldsOf,
  isSet,
  type JsonObject,
  numberOf,
  objectOf,
  objectsOf,
  optionalNumber,
  optionalString,
  stringOf,
} from '../json.js';
import { isDns1123Label, nameIsDnsSubdomain, nameIsPathSegment } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { quantityOf, validateContainerResourceName } from '../resources.js';

const METRIC_SOURCES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_FIELDS: Readonly<Record<string, string>> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};
const POLICY_SELECTS = ['Disabled', 'Max', 'Min'];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

function validateReference(reference: unknown, path: string): FieldError[] {
  const fields = fieldsOf(reference);
  const errors: FieldError[] = [];
  for (const key of ['kind', 'name'] as const) {
    const value = stringOf(fields[key]);
    if (value === '') errors.push(fieldRequired(childPath(path, key), ''));
    else
      for (const problem of nameIsPathSegment(value, false))
        errors.push(fieldInvalid(childPath(path, key), value, problem));
  }
  return errors;
}

function validateTarget(target: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = stringOf(target.type);
  if (type === '') errors.push(fieldRequired(childPath(path, 'type'), 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) {
    errors.push(
      fieldInvalid(childPath(path, 'type'), type, 'must be either Utilization, Value, or AverageValue'),
    );
  }
  for (const key of ['value', 'averageValue'] as const) {
    if (!isSet(target[key])) continue;
    const quantity = quantityOf(target[key]);
    if (quantity !== undefined && quantity.sign() !== 1)
      errors.push(fieldInvalid(childPath(path, key), quantity.toString(), 'must be positive'));
  }
  const utilization = optionalNumber(target.averageUtilization);
  if (utilization !== undefined && utilization < 1) {
    errors.push(fieldInvalid(childPath(path, 'averageUtilization'), utilization, 'must be greater than 0'));
  }
  return errors;
}

function validateMetricName(metric: unknown, path: string): FieldError[] {
  const name = stringOf(fieldsOf(metric).name);
  if (name === '') return [fieldRequired(childPath(path, 'name'), 'must specify a metric name')];
  return nameIsPathSegment(name, false).map((problem) =>
    fieldInvalid(childPath(path, 'name'), name, problem),
  );
}

function validateSource(kind: string, source: JsonObject, path: string): FieldError[] {
  const target = fieldsOf(source.target);
  const targetPath = childPath(path, 'target');
  const errors: FieldError[] = [];
  switch (kind) {
    case 'object':
      errors.push(...validateReference(source.describedObject, childPath(path, 'describedObject')));
      errors.push(...validateMetricName(source.metric, childPath(path, 'metric')));
      errors.push(...validateTarget(target, targetPath));
      if (!isSet(target.value) && !isSet(target.averageValue)) {
        errors.push(
          fieldRequired(
            childPath(targetPath, 'averageValue'),
            'must set either a target value or averageValue',
          ),
        );
      }
      break;
    case 'external':
      errors.push(...validateMetricName(source.metric, childPath(path, 'metric')));
      errors.push(...validateTarget(target, targetPath));
      if (!isSet(target.value) && !isSet(target.averageValue)) {
        errors.push(
          fieldRequired(
            childPath(targetPath, 'averageValue'),
            'must set either a target value for metric or a per-pod target',
          ),
        );
      }
      if (isSet(target.value) && isSet(target.averageValue)) {
        errors.push(
          fieldForbidden(
            childPath(targetPath, 'value'),
            'may not set both a target value for metric and a per-pod target',
          ),
        );
      }
      break;
    case 'pods':
      errors.push(...validateMetricName(source.metric, childPath(path, 'metric')));
      errors.push(...validateTarget(target, targetPath));
      if (!isSet(target.averageValue)) {
        errors.push(
          fieldRequired(childPath(targetPath, 'averageValue'), 'must specify a positive target averageValue'),
        );
      }
      break;
    case 'resource':
    case 'containerResource': {
      const name = stringOf(source.name);
      if (name === '') errors.push(fieldRequired(childPath(path, 'name'), 'must specify a resource name'));
      else if (kind === 'containerResource')
        errors.push(...validateContainerResourceName(name, childPath(path, 'name')));
      if (kind === 'containerResource') {
        const container = stringOf(source.container);
        if (container === '')
          errors.push(fieldRequired(childPath(path, 'container'), 'must specify a container'));
        else
          for (const problem of isDns1123Label(container))
            errors.push(fieldInvalid(childPath(path, 'container'), container, problem));
      }
      errors.push(...validateTarget(target, targetPath));
      if (!isSet(target.averageUtilization) && !isSet(target.averageValue)) {
        errors.push(
          fieldRequired(
            childPath(targetPath, 'averageUtilization'),
            'must set either a target raw value or a target utilization',
          ),
        );
      }
      if (isSet(target.averageUtilization) && isSet(target.averageValue)) {
        errors.push(
          fieldForbidden(
            childPath(targetPath, 'averageValue'),
            'may not set both a target raw value and a target utilization',
          ),
        );
      }
      break;
    }
  }
  return errors;
}

function validateMetric(metric: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = stringOf(metric.type);
  if (type === '') errors.push(fieldRequired(childPath(path, 'type'), 'must specify a metric source type'));
  if (!METRIC_SOURCES.includes(type))
    errors.push(fieldNotSupported(childPath(path, 'type'), type, METRIC_SOURCES));
  const present: string[] = [];
  for (const key of ['object', 'external', 'pods', 'resource', 'containerResource']) {
    const source = objectOf(metric[key]);
    if (source === undefined) continue;
    present.push(key);
    if (present.length === 1) errors.push(...validateSource(key, source, childPath(path, key)));
  }
  const expected = SOURCE_FIELDS[type];
  if (expected === undefined) {
    errors.push(fieldNotSupported(childPath(path, 'type'), type, METRIC_SOURCES));
  } else if (!present.includes(expected)) {
    errors.push(
      fieldRequired(childPath(path, expected), 'must populate information for the given metric source'),
    );
  }
  if (present.length !== 1) {
    for (const key of present.filter((key) => key !== expected).sort()) {
      errors.push(fieldForbidden(childPath(path, key), 'must populate the given metric source only'));
    }
  }
  return errors;
}

function validateScalingRules(rules: unknown, path: string): FieldError[] {
  const fields = objectOf(rules);
  if (fields === undefined) return [];
  const errors: FieldError[] = [];
  const window = optionalNumber(fields.stabilizationWindowSeconds);
  if (window !== undefined && window < 0) {
    errors.push(
      fieldInvalid(
        childPath(path, 'stabilizationWindowSeconds'),
        window,
        'must be greater than or equal to zero',
      ),
    );
  }
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errors.push(
      fieldInvalid(
        childPath(path, 'stabilizationWindowSeconds'),
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  const select = optionalString(fields.selectPolicy);
  if (select !== undefined && !POLICY_SELECTS.includes(select))
    errors.push(fieldNotSupported(childPath(path, 'selectPolicy'), select, POLICY_SELECTS));
  const policies = objectsOf(fields.policies);
  const policiesPath = childPath(path, 'policies');
  if (policies.length === 0) errors.push(fieldRequired(policiesPath, 'must specify at least one Policy'));
  policies.forEach((policy, index) => {
    const policyPath = indexPath(policiesPath, index);
    const type = stringOf(policy.type);
    if (type !== 'Pods' && type !== 'Percent')
      errors.push(fieldNotSupported(childPath(policyPath, 'type'), type, ['Percent', 'Pods']));
    const value = numberOf(policy.value);
    if (value <= 0)
      errors.push(fieldInvalid(childPath(policyPath, 'value'), value, 'must be greater than zero'));
    const period = numberOf(policy.periodSeconds);
    if (period <= 0)
      errors.push(fieldInvalid(childPath(policyPath, 'periodSeconds'), period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS) {
      errors.push(
        fieldInvalid(
          childPath(policyPath, 'periodSeconds'),
          period,
          `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
        ),
      );
    }
  });
  return errors;
}

function validateSpec(spec: JsonObject, minReplicasLowerBound: number): FieldError[] {
  const errors: FieldError[] = [];
  const minReplicas = optionalNumber(spec.minReplicas);
  const maxReplicas = numberOf(spec.maxReplicas);
  if (minReplicas !== undefined && minReplicas < minReplicasLowerBound) {
    errors.push(
      fieldInvalid(
        'spec.minReplicas',
        minReplicas,
        `must be greater than or equal to ${minReplicasLowerBound}`,
      ),
    );
  }
  if (maxReplicas < 1) errors.push(fieldInvalid('spec.maxReplicas', maxReplicas, 'must be greater than 0'));
  if (minReplicas !== undefined && maxReplicas < minReplicas) {
    errors.push(
      fieldInvalid('spec.maxReplicas', maxReplicas, 'must be greater than or equal to `minReplicas`'),
    );
  }
  errors.push(...validateReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const metrics = objectsOf(spec.metrics);
  metrics.forEach((metric, index) => {
    errors.push(...validateMetric(metric, indexPath('spec.metrics', index)));
  });
  if (
    minReplicas === 0 &&
    !metrics.some((metric) => ['Object', 'External'].includes(stringOf(metric.type)))
  ) {
    errors.push(
      fieldForbidden(
        'spec.metrics',
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  }
  const behavior = objectOf(spec.behavior);
  if (behavior !== undefined) {
    errors.push(...validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp'));
    errors.push(...validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return errors;
}

export function validateHorizontalPodAutoscaler(autoscaler: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(autoscaler.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateSpec(fieldsOf(autoscaler.spec), 1),
  ];
}

export function validateHorizontalPodAutoscalerUpdate(autoscaler: KubeObject, old: KubeObject): FieldError[] {
  const lowerBound = optionalNumber(fieldsOf(old.spec).minReplicas) === 0 ? 0 : 1;
  return [
    ...validateObjectMetaUpdate(autoscaler.metadata, old.metadata),
    ...validateSpec(fieldsOf(autoscaler.spec), lowerBound),
  ];
}
