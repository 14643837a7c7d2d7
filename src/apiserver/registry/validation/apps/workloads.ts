// apps/v1 workloads: Deployments, ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions.
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type LabelSelector,
  labelSelectorFromObject,
  SelectorError,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { GoRendered, goIntOrString, goLabelSelector, goStringMap } from '../go-rendered.js';
import {
  fieldsOf,
  isJsonObject,
  isSet,
  type JsonObject,
  lengthOf,
  numberOf,
  objectOf,
  optionalNumber,
  semanticEqual,
  stringMapOf,
  stringOf,
} from '../json.js';
import { isValidPercent, nameIsDnsLabel, nameIsDnsSubdomain } from '../names.js';
import {
  FIELD_IMMUTABLE,
  validateNonnegative,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { validatePodTemplateMetadata, validatePodTemplateSpec } from '../pod/pod.js';

const NOT_MATCHING = '`selector` does not match template `labels`';

/** metav1.LabelSelectorAsSelector: undefined when the selector cannot be converted. */
function selectorOf(selector: unknown): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(objectOf(selector));
  } catch (error) {
    if (error instanceof SelectorError) return undefined;
    throw error;
  }
}

/** The selector checks Deployments, ReplicaSets and StatefulSets share. */
function validateRequiredSelector(spec: JsonObject, kindName: string): FieldError[] {
  const selector = objectOf(spec.selector);
  if (selector === undefined) return [fieldRequired('spec.selector', '')];
  const errors = validateLabelSelectorObject(selector, 'spec.selector');
  if (lengthOf(selector.matchLabels) + lengthOf(selector.matchExpressions) === 0) {
    errors.push(
      fieldInvalid('spec.selector', goLabelSelector(selector), `empty selector is invalid for ${kindName}`),
    );
  }
  return errors;
}

function templateLabels(spec: JsonObject): Record<string, string> {
  return stringMapOf(fieldsOf(fieldsOf(spec.template).metadata).labels);
}

function selectorMismatch(selector: LabelSelector, spec: JsonObject): FieldError[] {
  if (selector.isEmpty() || selector.matches(templateLabels(spec))) return [];
  return [
    fieldInvalid(
      'spec.template.metadata.labels',
      goStringMap(fieldsOf(fieldsOf(spec.template).metadata).labels),
      NOT_MATCHING,
    ),
  ];
}

/** ValidatePodTemplateSpecForReplicaSet. */
function validateTemplateForReplicaSet(
  selector: LabelSelector,
  spec: JsonObject,
  kindName: string,
): FieldError[] {
  const errors = selectorMismatch(selector, spec);
  errors.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errors.push(...restartAndDeadlineRules(spec, kindName));
  return errors;
}

function restartAndDeadlineRules(
  spec: JsonObject,
  kindName: string,
  deadlineAsInvalid = false,
): FieldError[] {
  const errors: FieldError[] = [];
  const templateSpec = fieldsOf(fieldsOf(spec.template).spec);
  const restartPolicy = stringOf(templateSpec.restartPolicy);
  if (restartPolicy !== 'Always')
    errors.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (isSet(templateSpec.activeDeadlineSeconds)) {
    errors.push(
      deadlineAsInvalid
        ? fieldInvalid(
            'spec.template.spec.activeDeadlineSeconds',
            templateSpec.activeDeadlineSeconds,
            'must not be specified',
          )
        : fieldForbidden(
            'spec.template.spec.activeDeadlineSeconds',
            `activeDeadlineSeconds in ${kindName} is not Supported`,
          ),
    );
  }
  return errors;
}

function percentValue(value: unknown): number | undefined {
  if (typeof value !== 'string' || isValidPercent(value).length > 0) return undefined;
  return Number.parseInt(value.slice(0, -1), 10);
}

/** getIntOrPercentValue (a string that is not a percentage counts as 0, as IntValue does). */
function intOrPercentValue(value: unknown): number {
  const percent = percentValue(value);
  if (percent !== undefined) return percent;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const parsed = Number.parseInt(value, 10);
    return /^[+-]?[0-9]+$/.test(value) ? parsed : 0;
  }
  return 0;
}

/** ValidatePositiveIntOrPercent. */
function validatePositiveIntOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') {
    return isValidPercent(value).map((problem) => fieldInvalid(path, goIntOrString(value), problem));
  }
  return validateNonnegative(numberOf(value), path);
}

/** IsNotMoreThan100Percent. */
function notMoreThan100Percent(value: unknown, path: string): FieldError[] {
  const percent = percentValue(value);
  return percent !== undefined && percent > 100
    ? [fieldInvalid(path, goIntOrString(value), 'must not be greater than 100%')]
    : [];
}

/** A Go strategy struct printed with %#v (the rolling update pointer is shown only as set or nil). */
function goStrategy(structName: string, rollingName: string, type: string, rolling: unknown): GoRendered {
  const pointer = isJsonObject(rolling) ? `&${rollingName}{...}` : `(*${rollingName})(nil)`;
  return new GoRendered(`${structName}{Type:"${type}", RollingUpdate:${pointer}}`);
}

function validateDeploymentStrategy(strategy: JsonObject): FieldError[] {
  const type = stringOf(strategy.type);
  const path = 'spec.strategy';
  switch (type) {
    case 'Recreate':
      return isSet(strategy.rollingUpdate)
        ? [
            fieldForbidden(
              childPath(path, 'rollingUpdate'),
              "may not be specified when strategy `type` is 'Recreate'",
            ),
          ]
        : [];
    case 'RollingUpdate': {
      const rolling = objectOf(strategy.rollingUpdate);
      if (rolling === undefined)
        return [fieldRequired(childPath(path, 'rollingUpdate'), 'this should be defaulted and never be nil')];
      const rollingPath = childPath(path, 'rollingUpdate');
      const errors = [
        ...validatePositiveIntOrPercent(rolling.maxUnavailable, childPath(rollingPath, 'maxUnavailable')),
        ...validatePositiveIntOrPercent(rolling.maxSurge, childPath(rollingPath, 'maxSurge')),
      ];
      if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
        errors.push(
          fieldInvalid(
            childPath(rollingPath, 'maxUnavailable'),
            goIntOrString(rolling.maxUnavailable),
            'may not be 0 when `maxSurge` is 0',
          ),
        );
      }
      errors.push(...notMoreThan100Percent(rolling.maxUnavailable, childPath(rollingPath, 'maxUnavailable')));
      return errors;
    }
    default:
      return [
        fieldNotSupported(
          path,
          goStrategy('apps.DeploymentStrategy', 'apps.RollingUpdateDeployment', type, strategy.rollingUpdate),
          ['Recreate', 'RollingUpdate'],
        ),
      ];
  }
}

/** ValidateDeploymentSpec. */
function validateDeploymentSpec(spec: JsonObject): FieldError[] {
  const errors = validateNonnegative(numberOf(spec.replicas), 'spec.replicas');
  errors.push(...validateRequiredSelector(spec, 'deployment'));
  const selector = selectorOf(spec.selector);
  if (selector === undefined)
    errors.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), 'invalid label selector'));
  else errors.push(...validateTemplateForReplicaSet(selector, spec, 'ReplicaSet'));
  errors.push(...validateDeploymentStrategy(fieldsOf(spec.strategy)));
  const minReady = numberOf(spec.minReadySeconds);
  errors.push(...validateNonnegative(minReady, 'spec.minReadySeconds'));
  const history = optionalNumber(spec.revisionHistoryLimit);
  if (history !== undefined) errors.push(...validateNonnegative(history, 'spec.revisionHistoryLimit'));
  const deadline = optionalNumber(spec.progressDeadlineSeconds);
  if (deadline !== undefined) {
    errors.push(...validateNonnegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= minReady)
      errors.push(
        fieldInvalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'),
      );
  }
  return errors;
}

/** The apps/v1 strategies forbid changing the selector (after ValidateXUpdate). */
function selectorImmutable(object: KubeObject, old: KubeObject): FieldError[] {
  const selector = fieldsOf(object.spec).selector;
  if (semanticEqual(selector, fieldsOf(old.spec).selector)) return [];
  return [fieldInvalid('spec.selector', goLabelSelector(selector), FIELD_IMMUTABLE)];
}

export function validateDeployment(deployment: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(deployment.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateDeploymentSpec(fieldsOf(deployment.spec)),
  ];
}

export function validateDeploymentUpdate(deployment: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(deployment.metadata, old.metadata),
    ...validateDeploymentSpec(fieldsOf(deployment.spec)),
    ...selectorImmutable(deployment, old),
  ];
}

function validateReplicaSetSpec(spec: JsonObject): FieldError[] {
  const errors = [
    ...validateNonnegative(numberOf(spec.replicas), 'spec.replicas'),
    ...validateNonnegative(numberOf(spec.minReadySeconds), 'spec.minReadySeconds'),
    // Kubernetes says "deployment" here too.
    ...validateRequiredSelector(spec, 'deployment'),
  ];
  const selector = selectorOf(spec.selector);
  if (selector === undefined)
    errors.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), 'invalid label selector'));
  else errors.push(...validateTemplateForReplicaSet(selector, spec, 'ReplicaSet'));
  return errors;
}

export function validateReplicaSet(replicaSet: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(replicaSet.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateReplicaSetSpec(fieldsOf(replicaSet.spec)),
  ];
}

export function validateReplicaSetUpdate(replicaSet: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(replicaSet.metadata, old.metadata),
    ...validateReplicaSetSpec(fieldsOf(replicaSet.spec)),
    ...selectorImmutable(replicaSet, old),
  ];
}

const RETENTION_POLICIES = ['Retain', 'Delete'];

function validateStatefulSetSpec(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const management = stringOf(spec.podManagementPolicy);
  if (management === '') errors.push(fieldRequired('spec.podManagementPolicy', ''));
  else if (management !== 'OrderedReady' && management !== 'Parallel') {
    errors.push(fieldInvalid('spec.podManagementPolicy', management, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = fieldsOf(spec.updateStrategy);
  const type = stringOf(strategy.type);
  const rolling = objectOf(strategy.rollingUpdate);
  switch (type) {
    case '':
      errors.push(fieldRequired('spec.updateStrategy', ''));
      break;
    case 'OnDelete':
      if (rolling !== undefined) {
        errors.push(
          fieldInvalid(
            'spec.updateStrategy.rollingUpdate',
            new GoRendered('&apps.RollingUpdateStatefulSetStrategy{...}'),
            "only allowed for updateStrategy 'RollingUpdate'",
          ),
        );
      }
      break;
    case 'RollingUpdate':
      if (rolling !== undefined) {
        const rollingPath = 'spec.updateStrategy.rollingUpdate';
        errors.push(...validateNonnegative(numberOf(rolling.partition), childPath(rollingPath, 'partition')));
        if (isSet(rolling.maxUnavailable)) {
          const maxPath = childPath(rollingPath, 'maxUnavailable');
          errors.push(...validatePositiveIntOrPercent(rolling.maxUnavailable, maxPath));
          if (intOrPercentValue(rolling.maxUnavailable) === 0) {
            errors.push(fieldInvalid(maxPath, goIntOrString(rolling.maxUnavailable), 'cannot be 0'));
          }
          errors.push(...notMoreThan100Percent(rolling.maxUnavailable, maxPath));
        }
      }
      break;
    default:
      errors.push(
        fieldInvalid(
          'spec.updateStrategy',
          goStrategy(
            'apps.StatefulSetUpdateStrategy',
            'apps.RollingUpdateStatefulSetStrategy',
            type,
            strategy.rollingUpdate,
          ),
          "must be 'RollingUpdate' or 'OnDelete'",
        ),
      );
  }
  const retention = objectOf(spec.persistentVolumeClaimRetentionPolicy);
  if (retention !== undefined) {
    for (const key of ['whenDeleted', 'whenScaled'] as const) {
      const policy = stringOf(retention[key]);
      if (!RETENTION_POLICIES.includes(policy)) {
        errors.push(
          fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, policy, RETENTION_POLICIES),
        );
      }
    }
  }
  errors.push(...validateNonnegative(numberOf(spec.replicas), 'spec.replicas'));
  errors.push(...validateNonnegative(numberOf(spec.minReadySeconds), 'spec.minReadySeconds'));
  const ordinals = objectOf(spec.ordinals);
  if (ordinals !== undefined)
    errors.push(...validateNonnegative(numberOf(ordinals.start), 'spec.ordinals.start'));
  errors.push(...validateRequiredSelector(spec, 'statefulset'));
  const selector = selectorOf(spec.selector);
  if (selector === undefined) {
    errors.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), ''));
  } else {
    errors.push(...selectorMismatch(selector, spec));
    // StatefulSets check only the template's metadata, not its pod spec.
    errors.push(...validatePodTemplateMetadata(spec.template, 'spec.template'));
  }
  const templateSpec = fieldsOf(fieldsOf(spec.template).spec);
  const restartPolicy = stringOf(templateSpec.restartPolicy);
  if (restartPolicy !== 'Always')
    errors.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (isSet(templateSpec.activeDeadlineSeconds)) {
    errors.push(
      fieldForbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in StatefulSet is not Supported',
      ),
    );
  }
  return errors;
}

export function validateStatefulSet(statefulSet: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(statefulSet.metadata, { namespaced: true, name: nameIsDnsLabel }),
    ...validateStatefulSetSpec(fieldsOf(statefulSet.spec)),
  ];
}

const STATEFUL_SET_MUTABLE = [
  'replicas',
  'template',
  'updateStrategy',
  'minReadySeconds',
  'ordinals',
  'persistentVolumeClaimRetentionPolicy',
];

export function validateStatefulSetUpdate(statefulSet: KubeObject, old: KubeObject): FieldError[] {
  const errors = [
    ...validateObjectMetaUpdate(statefulSet.metadata, old.metadata),
    ...validateStatefulSetSpec(fieldsOf(statefulSet.spec)),
  ];
  const spec = { ...fieldsOf(statefulSet.spec) };
  const oldSpec = fieldsOf(old.spec);
  for (const key of STATEFUL_SET_MUTABLE) spec[key] = oldSpec[key];
  if (!semanticEqual(spec, oldSpec)) {
    errors.push(
      fieldForbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return [...errors, ...selectorImmutable(statefulSet, old)];
}

function validateDaemonSetSpec(spec: JsonObject): FieldError[] {
  const errors = validateLabelSelectorObject(objectOf(spec.selector), 'spec.selector');
  const selector = selectorOf(spec.selector);
  if (selector !== undefined && !selector.matches(templateLabels(spec))) {
    errors.push(
      fieldInvalid(
        'spec.template.metadata.labels',
        goStringMap(fieldsOf(fieldsOf(spec.template).metadata).labels),
        NOT_MATCHING,
      ),
    );
  }
  const rawSelector = objectOf(spec.selector);
  if (
    rawSelector !== undefined &&
    lengthOf(rawSelector.matchLabels) + lengthOf(rawSelector.matchExpressions) === 0
  ) {
    errors.push(
      fieldInvalid('spec.selector', goLabelSelector(rawSelector), 'empty selector is invalid for daemonset'),
    );
  }
  errors.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errors.push(...restartAndDeadlineRules(spec, 'DaemonSet'));
  errors.push(...validateNonnegative(numberOf(spec.minReadySeconds), 'spec.minReadySeconds'));
  const strategy = fieldsOf(spec.updateStrategy);
  const type = stringOf(strategy.type);
  if (type === 'RollingUpdate') {
    const rolling = objectOf(strategy.rollingUpdate);
    if (rolling === undefined) {
      errors.push(fieldRequired('spec.updateStrategy.rollingUpdate', ''));
    } else {
      const rollingPath = 'spec.updateStrategy.rollingUpdate';
      errors.push(
        ...validatePositiveIntOrPercent(rolling.maxUnavailable, childPath(rollingPath, 'maxUnavailable')),
      );
      errors.push(...validatePositiveIntOrPercent(rolling.maxSurge, childPath(rollingPath, 'maxSurge')));
      errors.push(...notMoreThan100Percent(rolling.maxUnavailable, childPath(rollingPath, 'maxUnavailable')));
      errors.push(...notMoreThan100Percent(rolling.maxSurge, childPath(rollingPath, 'maxSurge')));
      const hasUnavailable = intOrPercentValue(rolling.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(rolling.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) {
        errors.push(
          fieldInvalid(
            childPath(rollingPath, 'maxSurge'),
            goIntOrString(rolling.maxSurge),
            'may not be set when maxUnavailable is non-zero',
          ),
        );
      } else if (!hasUnavailable && !hasSurge) {
        errors.push(
          fieldRequired(childPath(rollingPath, 'maxUnavailable'), 'cannot be 0 when maxSurge is 0'),
        );
      }
    }
  } else if (type !== 'OnDelete') {
    errors.push(
      fieldNotSupported(
        'spec.updateStrategy',
        goStrategy(
          'apps.DaemonSetUpdateStrategy',
          'apps.RollingUpdateDaemonSet',
          type,
          strategy.rollingUpdate,
        ),
        ['RollingUpdate', 'OnDelete'],
      ),
    );
  }
  const history = optionalNumber(spec.revisionHistoryLimit);
  if (history !== undefined) errors.push(...validateNonnegative(history, 'spec.revisionHistoryLimit'));
  return errors;
}

export function validateDaemonSet(daemonSet: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(daemonSet.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateDaemonSetSpec(fieldsOf(daemonSet.spec)),
  ];
}

export function validateDaemonSetUpdate(daemonSet: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(daemonSet.metadata, old.metadata),
    ...validateDaemonSetSpec(fieldsOf(daemonSet.spec)),
    ...selectorImmutable(daemonSet, old),
  ];
}

export function validateControllerRevision(revision: KubeObject): FieldError[] {
  const errors = validateObjectMeta(revision.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  if (!isSet(revision.data)) errors.push(fieldRequired('data', 'data is mandatory'));
  errors.push(...validateNonnegative(numberOf(revision.revision), 'revision'));
  return errors;
}

export function validateControllerRevisionUpdate(revision: KubeObject, old: KubeObject): FieldError[] {
  const errors = [
    ...validateObjectMetaUpdate(revision.metadata, old.metadata),
    ...validateControllerRevision(revision),
  ];
  if (!semanticEqual(revision.data, old.data))
    errors.push(fieldInvalid('data', revision.data ?? null, 'field is immutable'));
  return errors;
}
