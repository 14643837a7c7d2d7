// Definitions that @kubernetes/client-node folds into plain TypeScript types (string, Date, any),
// so it has no model for them. Their Swagger 2.0 shapes are as kube-apiserver 1.33 serves them; the
// descriptions are tkube's own short summaries.
import type { SchemaObject } from '../../../src/apiserver/openapi/schema.js';

const APIEXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const TIME = `${META}.Time`;
export const MICRO_TIME = `${META}.MicroTime`;
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

export const LEAF_DEFINITIONS: Record<string, SchemaObject> = {
  [QUANTITY]: {
    description:
      'Quantity is a fixed-point number written as a string: a signed decimal or exponent number with an optional binary (Ki, Mi, Gi, Ti, Pi, Ei) or decimal (m, k, M, G, T, P, E) suffix, e.g. "500m", "1.5Gi" or "1e3".',
    type: 'string',
  },
  [TIME]: {
    description: 'Time is a timestamp in RFC 3339 form with second precision, in UTC.',
    format: 'date-time',
    type: 'string',
  },
  [MICRO_TIME]: {
    description: 'MicroTime is a Time with microsecond precision.',
    format: 'date-time',
    type: 'string',
  },
  [INT_OR_STRING]: {
    description:
      'IntOrString holds either an int32 or a string, and is written in JSON or YAML as whichever of the two it holds, so a field can take a name or a number.',
    format: 'int-or-string',
    type: 'string',
  },
  [`${META}.FieldsV1`]: {
    description:
      'FieldsV1 is a set of fields in a trie-like JSON form: each key is "." for the field itself, or "f:<name>" for a struct field or map key, "v:<value>" for a set item, "k:<keys>" for a list item by its key fields, or "i:<index>" for a list item by position; each value is the set of fields below it.',
    type: 'object',
  },
  [`${META}.Patch`]: {
    description: 'Patch names the type of the body of a PATCH request.',
    type: 'object',
  },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': {
    description:
      'RawExtension holds a complete embedded object (with its own apiVersion and kind) whose type is not known to the containing API.',
    type: 'object',
  },
  [`${APIEXTENSIONS}.JSON`]: {
    description:
      'JSON is any JSON value: a boolean, an integer, a float, a string, an array, an object or null.',
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: {
    description: 'JSONSchemaPropsOrArray is either one JSONSchemaProps or an array of them.',
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: {
    description:
      'JSONSchemaPropsOrBool is either a JSONSchemaProps or a boolean; a missing value means true.',
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: {
    description: 'JSONSchemaPropsOrStringArray is either a JSONSchemaProps or an array of strings.',
  },
  [`${APIEXTENSIONS}.CustomResourceSubresourceStatus`]: {
    description:
      'CustomResourceSubresourceStatus enables the /status subresource of a custom resource: it serves the `.status` stanza, PUT and PATCH on /status change only that stanza, and changes to it through the main resource are ignored. It has no fields.',
    type: 'object',
  },
  'io.k8s.api.apiserverinternal.v1alpha1.StorageVersionSpec': {
    description: 'StorageVersionSpec is an empty spec.',
    type: 'object',
  },
};
