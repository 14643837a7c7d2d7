// EqualIgnoreHash: whether two pod templates are the same Go value, semantically (apimachinery's
// Semantic.DeepEqual: quantities by value, times by instant, empty and nil lists and maps alike),
// ignoring the pod-template-hash label. Deployments find their new ReplicaSet this way.

import { Quantity } from '../../api/quantity.js';
import type { PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import { fieldJson, isNilCollection, jsonEntries, mapParts, namedType } from './go-layout.js';

type Json = unknown;
const HASH_LABEL = 'pod-template-hash';

/** A JSON value standing for the Go value, equal exactly when the Go values are semantically equal. */
function canonical(type: string, json: Json): Json {
  if (type.startsWith('*'))
    return json === undefined || json === null ? null : canonical(type.slice(1), json);
  if (type.startsWith('[]')) {
    return isNilCollection(json) ? null : (json as Json[]).map((item) => canonical(type.slice(2), item));
  }
  const map = mapParts(type);
  if (map !== undefined) {
    if (isNilCollection(json)) return null;
    const entries = jsonEntries(json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.map(([key, value]) => [key, canonical(map.value, value)]);
  }
  switch (type) {
    case 'meta.Time':
    case 'meta.MicroTime':
      return typeof json === 'string' ? Date.parse(json) : 0;
    case 'resource.Quantity': {
      const quantity = Quantity.tryFromJson(json);
      return quantity === undefined ? null : quantity.scaledValue(-9).toString();
    }
    case 'intstr.IntOrString':
      return typeof json === 'string' || typeof json === 'number' ? json : 0;
    case 'meta.FieldsV1':
      return json === undefined ? null : JSON.stringify(json);
  }
  const named = namedType(type);
  const basic = named === undefined ? type : 'basic' in named ? named.basic : undefined;
  if (basic !== undefined) {
    if (basic === 'string') return typeof json === 'string' ? json : '';
    if (basic === 'bool') return json === true;
    return typeof json === 'number' ? json : 0;
  }
  if (named === undefined || 'basic' in named) return null;
  if ('underlying' in named) return canonical(named.underlying, json);
  return named.struct.map((field) => canonical(field[2], fieldJson(json, field)));
}

function withoutHashLabel(template: PodTemplateSpec): PodTemplateSpec {
  const labels = template.metadata?.labels;
  if (labels === undefined || !(HASH_LABEL in labels)) return template;
  const { [HASH_LABEL]: _hash, ...rest } = labels;
  return { ...template, metadata: { ...template.metadata, labels: rest } };
}

export function equalIgnoreHash(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  const left = JSON.stringify(canonical('core.PodTemplateSpec', withoutHashLabel(a)));
  const right = JSON.stringify(canonical('core.PodTemplateSpec', withoutHashLabel(b)));
  return left === right;
}
