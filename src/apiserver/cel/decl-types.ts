// Schema → CEL types (k8s.io/apiserver/pkg/cel/common/schemas.go, SchemaDeclType): objects become
// message-like types with their (escaped) properties, additionalProperties maps, arrays lists,
// int-or-string dyn; each type carries the size bounds the cost estimator needs (maxLength,
// maxItems, maxProperties, or what fits in one request otherwise).
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { escapeFieldName } from './escaping.js';

/** The largest request the apiserver accepts (celconfig.MaxRequestSizeBytes). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;

export type ScalarName = 'int' | 'double' | 'bool' | 'string' | 'bytes' | 'timestamp' | 'duration' | 'dyn';

export interface DeclField {
  /** The property's name in JSON. */
  jsonName: string;
  type: DeclType;
}

export type DeclType =
  | {
      kind: 'object';
      /** The registered CEL type name. */
      name: string;
      /** Escaped CEL name → field. */
      fields: Map<string, DeclField>;
      minSerializedSize: number;
      maxElements: number;
    }
  | { kind: 'list'; elem: DeclType; maxElements: number; minSerializedSize: number; schema: JSONSchemaProps }
  | { kind: 'map'; elem: DeclType; maxElements: number; minSerializedSize: number }
  | { kind: 'scalar'; name: ScalarName; maxElements: number; minSerializedSize: number };

/** The CEL type text of a declared type (`list<string>`, `map<string, selfType1.spec>`). */
export function celTypeName(type: DeclType): string {
  switch (type.kind) {
    case 'object':
      return type.name;
    case 'list':
      return `list<${celTypeName(type.elem)}>`;
    case 'map':
      return `map<string, ${celTypeName(type.elem)}>`;
    case 'scalar':
      return type.name === 'timestamp'
        ? 'google.protobuf.Timestamp'
        : type.name === 'duration'
          ? 'google.protobuf.Duration'
          : type.name;
  }
}

function zeroIfNegative(value: number): number {
  return value < 0 ? 0 : value;
}

function scalar(name: ScalarName, minSerializedSize: number, maxElements = 0): DeclType {
  return { kind: 'scalar', name, minSerializedSize, maxElements };
}

function maxStringLength(schema: JSONSchemaProps): number {
  if (schema['x-kubernetes-int-or-string']) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (schema.format) {
    case 'duration':
      return MAX_DURATION_SIZE_JSON;
    case 'date':
      return JSON_DATE_SIZE;
    case 'date-time':
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

const STRING_PROPERTY: JSONSchemaProps = { type: 'string' };

/**
 * The schema with `apiVersion`, `kind` and `metadata.name`/`generateName` declared, as every
 * resource root (and embedded resource) offers them to rules (WithTypeAndObjectMeta).
 */
function withTypeAndObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const props = schema.properties ?? {};
  const meta = props.metadata;
  if (
    props.kind?.type === 'string' &&
    props.apiVersion?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties?.name?.type === 'string' &&
    meta.properties.generateName?.type === 'string'
  )
    return schema;
  return {
    ...schema,
    properties: {
      ...props,
      kind: STRING_PROPERTY,
      apiVersion: STRING_PROPERTY,
      metadata: { type: 'object', properties: { name: STRING_PROPERTY, generateName: STRING_PROPERTY } },
    },
  };
}

/** Builds declared types, naming each object type after its place under `rootName`. */
export class DeclTypeBuilder {
  /** Every object type built, in the order they must be registered (children first). */
  readonly objects: Extract<DeclType, { kind: 'object' }>[] = [];

  /** The CEL type of `schema`, or undefined when rules cannot see it (SchemaDeclType returning nil). */
  build(schema: JSONSchemaProps | undefined, isResourceRoot: boolean, name: string): DeclType | undefined {
    if (schema === undefined) return undefined;
    if (schema['x-kubernetes-int-or-string']) {
      return scalar('dyn', 1, MAX_REQUEST_SIZE_BYTES - 2);
    }
    const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
    switch (s.type) {
      case 'array': {
        if (s.items === undefined || Array.isArray(s.items)) return undefined;
        const items = s.items as JSONSchemaProps;
        const elem = this.build(items, items['x-kubernetes-embedded-resource'] === true, `${name}.__idx__`);
        if (elem === undefined) return undefined;
        const maxElements =
          s.maxItems !== undefined
            ? zeroIfNegative(s.maxItems)
            : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1));
        return { kind: 'list', elem, maxElements, minSerializedSize: 2, schema: s };
      }
      case 'object': {
        const additional = s.additionalProperties;
        if (additional !== undefined && typeof additional === 'object') {
          const valueSchema = additional as JSONSchemaProps;
          const elem = this.build(
            valueSchema,
            valueSchema['x-kubernetes-embedded-resource'] === true,
            `${name}.__elem__`,
          );
          if (elem === undefined) return undefined;
          const maxElements =
            s.maxProperties !== undefined
              ? zeroIfNegative(s.maxProperties)
              : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6));
          return { kind: 'map', elem, maxElements, minSerializedSize: 2 };
        }
        const required = new Set(s.required ?? []);
        const fields = new Map<string, DeclField>();
        let minSerializedSize = 2;
        for (const [propName, prop] of Object.entries(s.properties ?? {})) {
          const escaped = escapeFieldName(propName);
          const fieldType = this.build(
            prop,
            prop['x-kubernetes-embedded-resource'] === true,
            `${name}.${escaped ?? propName}`,
          );
          if (fieldType === undefined) continue;
          if (escaped !== undefined) fields.set(escaped, { jsonName: propName, type: fieldType });
          if (required.has(propName) && prop.default === undefined)
            minSerializedSize += propName.length + fieldType.minSerializedSize + 4;
        }
        const object = { kind: 'object' as const, name, fields, minSerializedSize, maxElements: 0 };
        this.objects.push(object);
        return object;
      }
      case 'string':
        switch (s.format) {
          case 'byte':
            return scalar(
              'bytes',
              MIN_STRING_SIZE,
              s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : maxStringLength(s),
            );
          case 'duration':
            return scalar('duration', MIN_DURATION_SIZE_JSON, maxStringLength(s));
          case 'date':
            return scalar('timestamp', JSON_DATE_SIZE, maxStringLength(s));
          case 'date-time':
            return scalar('timestamp', MIN_DATETIME_SIZE_JSON, maxStringLength(s));
        }
        // maxLength counts code points; a code point takes up to 4 bytes.
        return scalar(
          'string',
          MIN_STRING_SIZE,
          s.maxLength !== undefined ? zeroIfNegative(s.maxLength) * 4 : maxStringLength(s),
        );
      case 'boolean':
        return scalar('bool', MIN_BOOL_SIZE);
      case 'number':
        return scalar('double', MIN_NUMBER_SIZE);
      case 'integer':
        return scalar('int', MIN_NUMBER_SIZE);
    }
    return undefined;
  }
}
