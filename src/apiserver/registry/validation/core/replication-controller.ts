// ReplicationControllers: a map selector that must match the template.
import type { KubeObject } from '../../../../api/object.js';
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  labelSelectorFromSet,
} from '../../../../api/selectors/index.js';
import { goStringMap } from '../go-rendered.js';
import { fieldsOf, isJsonObject, isSet, numberOf, stringMapOf, stringOf } from '../json.js';
import { nameIsDnsSubdomain } from '../names.js';
import { validateNonnegative, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { validatePodTemplateSpec } from '../pod/pod.js';

function validateSpec(spec: Record<string, unknown>): FieldError[] {
  const errors = validateNonnegative(numberOf(spec.minReadySeconds), 'spec.minReadySeconds');
  const selector = labelSelectorFromSet(stringMapOf(spec.selector));
  if (selector.isEmpty()) errors.push(fieldRequired('spec.selector', ''));
  errors.push(...validateNonnegative(numberOf(spec.replicas), 'spec.replicas'));
  if (!isJsonObject(spec.template)) {
    errors.push(fieldRequired('spec.template', ''));
    return errors;
  }
  const labels = fieldsOf(fieldsOf(spec.template).metadata).labels;
  if (!selector.isEmpty() && !selector.matches(stringMapOf(labels))) {
    errors.push(
      fieldInvalid(
        'spec.template.metadata.labels',
        goStringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  }
  errors.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  const templateSpec = fieldsOf(fieldsOf(spec.template).spec);
  const restartPolicy = stringOf(templateSpec.restartPolicy);
  if (restartPolicy !== 'Always')
    errors.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (isSet(templateSpec.activeDeadlineSeconds)) {
    errors.push(
      fieldForbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    );
  }
  return errors;
}

export function validateReplicationController(controller: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(controller.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateSpec(fieldsOf(controller.spec)),
  ];
}

export function validateReplicationControllerUpdate(controller: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(controller.metadata, old.metadata),
    ...validateSpec(fieldsOf(controller.spec)),
  ];
}
