// The messages of gnostic's openapi_v2 package (gnostic-models openapiv2/OpenAPIv2.proto): field
// numbers and types for each Swagger 2.0 object, and the choices gnostic's compiler makes for its
// oneofs. The names of the tables follow the proto messages.

import {
  type FieldTable,
  fieldsMessage,
  isObject,
  type JsonValue,
  type MessageEncoder,
  namedMap,
  writeExtensions,
} from './message.js';
import type { ProtoWriter } from './writer.js';

const externalDocs = fieldsMessage({ description: [1, 'string'], url: [2, 'string'] }, 3);

const xml = fieldsMessage(
  {
    name: [1, 'string'],
    namespace: [2, 'string'],
    prefix: [3, 'string'],
    attribute: [4, 'bool'],
    wrapped: [5, 'bool'],
  },
  6,
);

/** `type` is a string or a list of strings; either way a TypeItem with `repeated string value = 1`. */
function typeItem(w: ProtoWriter, value: JsonValue): void {
  // gnostic takes the text of each scalar, whatever its YAML type.
  const names = Array.isArray(value) ? value : [value];
  for (const name of names) {
    if (name === null || typeof name !== 'object') w.stringElement(1, String(name));
  }
}

/** ItemsItem: `repeated Schema schema = 1`, one schema for the single `items` object. */
function itemsItem(w: ProtoWriter, value: JsonValue): void {
  if (isObject(value)) w.message(1, () => schema(w, value));
}

/** AdditionalPropertiesItem: oneof { Schema schema = 1; bool boolean = 2 }. */
function additionalPropertiesItem(w: ProtoWriter, value: JsonValue): void {
  if (typeof value === 'boolean') w.boolElement(2, value);
  else if (isObject(value)) w.message(1, () => schema(w, value));
}

const SCHEMA: FieldTable = {
  $ref: [1, 'string'],
  format: [2, 'string'],
  title: [3, 'string'],
  description: [4, 'string'],
  default: [5, 'any'],
  multipleOf: [6, 'double'],
  maximum: [7, 'double'],
  exclusiveMaximum: [8, 'bool'],
  minimum: [9, 'double'],
  exclusiveMinimum: [10, 'bool'],
  maxLength: [11, 'int64'],
  minLength: [12, 'int64'],
  pattern: [13, 'string'],
  maxItems: [14, 'int64'],
  minItems: [15, 'int64'],
  uniqueItems: [16, 'bool'],
  maxProperties: [17, 'int64'],
  minProperties: [18, 'int64'],
  required: [19, 'strings'],
  enum: [20, 'anys'],
  additionalProperties: [21, additionalPropertiesItem],
  type: [22, typeItem],
  items: [23, itemsItem],
  allOf: [24, { repeated: schema }],
  properties: [25, namedMap(schema)],
  discriminator: [26, 'string'],
  readOnly: [27, 'bool'],
  xml: [28, xml],
  externalDocs: [29, externalDocs],
  example: [30, 'any'],
};
const schemaMessage = fieldsMessage(SCHEMA, 31);

/** Schema, which nests itself (properties, items, allOf, additionalProperties). */
export function schema(w: ProtoWriter, value: JsonValue): void {
  schemaMessage(w, value);
}

const fileSchema = fieldsMessage(
  {
    format: [1, 'string'],
    title: [2, 'string'],
    description: [3, 'string'],
    default: [4, 'any'],
    required: [5, 'strings'],
    type: [6, 'string'],
    readOnly: [7, 'bool'],
    externalDocs: [8, externalDocs],
    example: [9, 'any'],
  },
  10,
);

/** SchemaItem: oneof { Schema schema = 1; FileSchema file_schema = 2 }; only `type: file` is a file. */
function schemaItem(w: ProtoWriter, value: JsonValue): void {
  if (!isObject(value)) return;
  if (value.type === 'file') w.message(2, () => fileSchema(w, value));
  else w.message(1, () => schema(w, value));
}

// The simple-type validation fields that headers, items and non-body parameters share, numbered
// from `first` in this order.
function primitiveFields(first: number): FieldTable {
  const keys: [string, FieldTable[string][1]][] = [
    ['type', 'string'],
    ['format', 'string'],
    ['items', primitivesItems],
    ['collectionFormat', 'string'],
    ['default', 'any'],
    ['maximum', 'double'],
    ['exclusiveMaximum', 'bool'],
    ['minimum', 'double'],
    ['exclusiveMinimum', 'bool'],
    ['maxLength', 'int64'],
    ['minLength', 'int64'],
    ['pattern', 'string'],
    ['maxItems', 'int64'],
    ['minItems', 'int64'],
    ['uniqueItems', 'bool'],
    ['enum', 'anys'],
    ['multipleOf', 'double'],
  ];
  return Object.fromEntries(keys.map(([key, type], index) => [key, [first + index, type] as const]));
}

const primitivesItemsMessage = fieldsMessage(primitiveFields(1), 18);

/** PrimitivesItems: the `items` of a non-body parameter or header, which nests itself. */
function primitivesItems(w: ProtoWriter, value: JsonValue): void {
  primitivesItemsMessage(w, value);
}

const header = fieldsMessage({ ...primitiveFields(1), description: [18, 'string'] }, 19);

// Header, path and query/formData parameters: required, in, description, name, [allowEmptyValue],
// then the primitive fields, then vendor extensions.
function parameterSubSchema(allowEmptyValue: boolean): MessageEncoder {
  const leading: FieldTable = {
    required: [1, 'bool'],
    in: [2, 'string'],
    description: [3, 'string'],
    name: [4, 'string'],
    ...(allowEmptyValue ? { allowEmptyValue: [5, 'bool'] as const } : {}),
  };
  const first = allowEmptyValue ? 6 : 5;
  return fieldsMessage({ ...leading, ...primitiveFields(first) }, first + 17);
}

const NON_BODY_PARAMETER: Readonly<Record<string, readonly [number, MessageEncoder]>> = {
  header: [1, parameterSubSchema(false)],
  formData: [2, parameterSubSchema(true)],
  query: [3, parameterSubSchema(true)],
  path: [4, parameterSubSchema(false)],
};

const bodyParameter = fieldsMessage(
  {
    description: [1, 'string'],
    name: [2, 'string'],
    in: [3, 'string'],
    required: [4, 'bool'],
    schema: [5, schema],
  },
  6,
);

/** Parameter: oneof { BodyParameter = 1; NonBodyParameter = 2 }, the latter a oneof chosen by `in`. */
function parameter(w: ProtoWriter, value: JsonValue): void {
  if (!isObject(value)) return;
  if (value.in === 'body') {
    w.message(1, () => bodyParameter(w, value));
    return;
  }
  const choice = typeof value.in === 'string' ? NON_BODY_PARAMETER[value.in] : undefined;
  if (choice) w.message(2, () => w.message(choice[0], () => choice[1](w, value)));
}

const jsonReference = fieldsMessage({ $ref: [1, 'string'], description: [2, 'string'] });

/** ParametersItem: oneof { Parameter = 1; JsonReference = 2 }; gnostic prefers the reference. */
function parametersItem(w: ProtoWriter, value: JsonValue): void {
  if (isObject(value) && value.$ref !== undefined) w.message(2, () => jsonReference(w, value));
  else w.message(1, () => parameter(w, value));
}

const response = fieldsMessage(
  {
    description: [1, 'string'],
    schema: [2, schemaItem],
    headers: [3, namedMap(header)],
    examples: [4, namedMap('any')],
  },
  5,
);

/** ResponseValue: oneof { Response = 1; JsonReference = 2 }. */
function responseValue(w: ProtoWriter, value: JsonValue): void {
  if (isObject(value) && value.$ref !== undefined) w.message(2, () => jsonReference(w, value));
  else w.message(1, () => response(w, value));
}

const RESPONSE_CODE = /^([0-9]{3})$|^(default)$/;

/** Responses: `repeated NamedResponseValue response_code = 1` for status codes, extensions in 2. */
function responses(w: ProtoWriter, value: JsonValue): void {
  if (!isObject(value)) return;
  for (const [code, item] of Object.entries(value)) {
    if (!RESPONSE_CODE.test(code)) continue;
    w.message(1, () => {
      w.string(1, code);
      w.message(2, () => responseValue(w, item));
    });
  }
  writeExtensions(w, 2, value);
}

const stringArray = fieldsMessage({ value: [1, 'strings'] });
const securityRequirement = namedMap((w, value) => stringArray(w, { value }));

const operation = fieldsMessage(
  {
    tags: [1, 'strings'],
    summary: [2, 'string'],
    description: [3, 'string'],
    externalDocs: [4, externalDocs],
    operationId: [5, 'string'],
    produces: [6, 'strings'],
    consumes: [7, 'strings'],
    parameters: [8, { repeated: parametersItem }],
    responses: [9, responses],
    schemes: [10, 'strings'],
    deprecated: [11, 'bool'],
    security: [12, { repeated: securityRequirement }],
  },
  13,
);

const pathItem = fieldsMessage(
  {
    $ref: [1, 'string'],
    get: [2, operation],
    put: [3, operation],
    post: [4, operation],
    delete: [5, operation],
    options: [6, operation],
    head: [7, operation],
    patch: [8, operation],
    parameters: [9, { repeated: parametersItem }],
  },
  10,
);

/** Paths: extensions in 1, then `repeated NamedPathItem path = 2` for the keys starting with `/`. */
function paths(w: ProtoWriter, value: JsonValue): void {
  if (!isObject(value)) return;
  writeExtensions(w, 1, value);
  for (const [path, item] of Object.entries(value)) {
    if (!path.startsWith('/')) continue;
    w.message(2, () => {
      w.string(1, path);
      w.message(2, () => pathItem(w, item));
    });
  }
}

const oauth2Scopes = namedMap('string');

// The six security scheme messages, keyed by `type` (and `flow` for oauth2).
const SECURITY_SCHEMES: Readonly<Record<string, readonly [number, MessageEncoder]>> = {
  basic: [1, fieldsMessage({ type: [1, 'string'], description: [2, 'string'] }, 3)],
  apiKey: [
    2,
    fieldsMessage(
      { type: [1, 'string'], name: [2, 'string'], in: [3, 'string'], description: [4, 'string'] },
      5,
    ),
  ],
  'oauth2/implicit': [
    3,
    fieldsMessage(
      {
        type: [1, 'string'],
        flow: [2, 'string'],
        scopes: [3, oauth2Scopes],
        authorizationUrl: [4, 'string'],
        description: [5, 'string'],
      },
      6,
    ),
  ],
  'oauth2/password': [
    4,
    fieldsMessage(
      {
        type: [1, 'string'],
        flow: [2, 'string'],
        scopes: [3, oauth2Scopes],
        tokenUrl: [4, 'string'],
        description: [5, 'string'],
      },
      6,
    ),
  ],
  'oauth2/application': [
    5,
    fieldsMessage(
      {
        type: [1, 'string'],
        flow: [2, 'string'],
        scopes: [3, oauth2Scopes],
        tokenUrl: [4, 'string'],
        description: [5, 'string'],
      },
      6,
    ),
  ],
  'oauth2/accessCode': [
    6,
    fieldsMessage(
      {
        type: [1, 'string'],
        flow: [2, 'string'],
        scopes: [3, oauth2Scopes],
        authorizationUrl: [4, 'string'],
        tokenUrl: [5, 'string'],
        description: [6, 'string'],
      },
      7,
    ),
  ],
};

/** SecurityDefinitionsItem: a oneof of the six schemes. */
function securityDefinitionsItem(w: ProtoWriter, value: JsonValue): void {
  if (!isObject(value) || typeof value.type !== 'string') return;
  const key = value.type === 'oauth2' ? `oauth2/${String(value.flow)}` : value.type;
  const choice = SECURITY_SCHEMES[key];
  if (choice) w.message(choice[0], () => choice[1](w, value));
}

const contact = fieldsMessage({ name: [1, 'string'], url: [2, 'string'], email: [3, 'string'] }, 4);
const license = fieldsMessage({ name: [1, 'string'], url: [2, 'string'] }, 3);

const info = fieldsMessage(
  {
    title: [1, 'string'],
    version: [2, 'string'],
    description: [3, 'string'],
    termsOfService: [4, 'string'],
    contact: [5, contact],
    license: [6, license],
  },
  7,
);

const tag = fieldsMessage(
  { name: [1, 'string'], description: [2, 'string'], externalDocs: [3, externalDocs] },
  4,
);

/** Document: the root of a Swagger 2.0 description. */
export const openAPIV2Document: MessageEncoder = fieldsMessage(
  {
    swagger: [1, 'string'],
    info: [2, info],
    host: [3, 'string'],
    basePath: [4, 'string'],
    schemes: [5, 'strings'],
    consumes: [6, 'strings'],
    produces: [7, 'strings'],
    paths: [8, paths],
    definitions: [9, namedMap(schema)],
    parameters: [10, namedMap(parameter)],
    responses: [11, namedMap(response)],
    security: [12, { repeated: securityRequirement }],
    securityDefinitions: [13, namedMap(securityDefinitionsItem)],
    tags: [14, { repeated: tag }],
    externalDocs: [15, externalDocs],
  },
  16,
);
