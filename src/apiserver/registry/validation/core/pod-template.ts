// PodTemplates: metadata and the template.
import type { KubeObject } from '../../../../api/object.js';
import type { FieldError } from '../../../../api/selectors/index.js';
import { nameIsDnsSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { validatePodTemplateSpec } from '../pod/pod.js';

export function validatePodTemplate(template: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(template.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validatePodTemplateSpec(template.template, 'template'),
  ];
}

export function validatePodTemplateUpdate(template: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(template.metadata, old.metadata),
    ...validatePodTemplateSpec(template.template, 'template'),
  ];
}
