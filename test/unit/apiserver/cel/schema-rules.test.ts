// x-kubernetes-validations rules of CRD schemas: compile errors, cost refusals and evaluation,
// asserting apiextensions-apiserver's texts.
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../../../src/api/selectors/field-errors.js';
import type {
  JSONSchemaProps,
  ValidationRule,
} from '../../../../src/api/types/apiextensions-v1.generated.js';
import { blockingSchemaError, compileSchemaValidations } from '../../../../src/apiserver/cel/index.js';

const ROOT = 'spec.validation.openAPIV3Schema';
const AT = `${ROOT}.properties[spec].x-kubernetes-validations[0]`;

const SPEC_PROPERTIES: Record<string, JSONSchemaProps> = {
  replicas: { type: 'integer' },
  name: { type: 'string', maxLength: 63 },
  tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
  labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 20 } },
  port: { 'x-kubernetes-int-or-string': true },
  'x-name': { type: 'string' },
  namespace: { type: 'string' },
  timeout: { type: 'string', format: 'duration' },
  startAt: { type: 'string', format: 'date-time' },
  template: {
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  },
};

/** A CRD schema whose `spec` carries `rules`. */
function specSchema(rules: ValidationRule[], properties = SPEC_PROPERTIES): JSONSchemaProps {
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': rules } },
  };
}

function compileErrors(rules: ValidationRule[], properties?: Record<string, JSONSchemaProps>): string[] {
  return compileSchemaValidations(specSchema(rules, properties), ROOT).errors.map(fieldErrorMessage);
}

function validate(rules: ValidationRule[], spec: unknown, oldSpec?: unknown): string[] {
  const { errors, rules: compiled } = compileSchemaValidations(specSchema(rules), ROOT);
  expect(errors.map(fieldErrorMessage)).toEqual([]);
  return compiled
    .validate({ spec }, oldSpec === undefined ? undefined : { spec: oldSpec })
    .map(fieldErrorMessage);
}

function goRule(rule: string, extra = ''): string {
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:${extra || '""'}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
}

describe('compile errors', () => {
  const cases: [string, ValidationRule, string[]][] = [
    [
      'an undefined field',
      { rule: 'self.foo > 1' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.foo > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo > 1\n | ....^`,
      ],
    ],
    [
      'an undeclared variable',
      { rule: 'foo == 1' },
      [
        `${AT}.rule: Invalid value: ${goRule('foo == 1')}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^`,
      ],
    ],
    [
      'operands of the wrong types',
      { rule: 'self.replicas > "a"' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.replicas > "a"')}: compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'\n | self.replicas > "a"\n | ..............^`,
      ],
    ],
    [
      'a constant regular expression that does not compile',
      { rule: 'self.name.matches("[a-z")' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.name.matches("[a-z")')}: compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches("[a-z")\n | ..................^`,
      ],
    ],
    [
      'a constant duration that does not parse',
      { rule: 'self.timeout < duration("1 hour")' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.timeout < duration("1 hour")')}: compilation failed: ERROR: <input>:1:25: invalid duration argument\n | self.timeout < duration("1 hour")\n | ........................^`,
      ],
    ],
    [
      'a constant timestamp that does not parse',
      { rule: 'self.startAt < timestamp("yesterday")' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.startAt < timestamp("yesterday")')}: compilation failed: ERROR: <input>:1:26: invalid timestamp argument\n | self.startAt < timestamp("yesterday")\n | .........................^`,
      ],
    ],
    [
      'a constant find pattern that does not compile',
      { rule: 'self.name.find("(a") == ""' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.name.find("(a") == ""')}: program instantiation failed: error parsing regexp: missing closing ): \`(a\``,
      ],
    ],
    [
      'a list literal of mixed types',
      { rule: 'self.replicas in [1, "two"]' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.replicas in [1, "two"]')}: compilation failed: ERROR: <input>:1:22: expected type 'int' but found 'string'\n | self.replicas in [1, "two"]\n | .....................^`,
      ],
    ],
    [
      'a method with arguments of the wrong types',
      { rule: 'self.tags.indexOf(1) >= 0' },
      [
        `${AT}.rule: Invalid value: ${goRule('self.tags.indexOf(1) >= 0')}: compilation failed: ERROR: <input>:1:18: found no matching overload for 'indexOf' applied to 'list(string).(int)'\n | self.tags.indexOf(1) >= 0\n | .................^`,
      ],
    ],
    [
      'a result that is not a bool',
      { rule: 'self.replicas' },
      [`${AT}.rule: Invalid value: ${goRule('self.replicas')}: cel expression must evaluate to a bool`],
    ],
    ['an empty rule', { rule: '  ' }, [`${AT}.rule: Required value: rule is not specified`]],
    [
      'a blank message',
      { rule: 'true', message: ' ' },
      [`${AT}.message: Invalid value: " ": message must be non-empty if specified`],
    ],
    [
      'a message with line breaks',
      { rule: 'true', message: 'a\nb' },
      [`${AT}.message: Invalid value: "a\\nb": message must not contain line breaks`],
    ],
    [
      'a multi-line rule without message',
      { rule: 'true &&\ntrue' },
      [`${AT}.message: Required value: message must be specified if rule contains line breaks`],
    ],
    [
      'an unsupported reason',
      { rule: 'true', reason: 'FieldValueBogus' },
      [
        `${AT}.reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      ],
    ],
    [
      'a fieldPath naming no field',
      { rule: 'true', fieldPath: '.nope' },
      [`${AT}.fieldPath: Invalid value: ".nope": fieldPath must be a valid path`],
    ],
    [
      'a messageExpression that does not compile',
      { rule: 'true', messageExpression: 'self.nope' },
      [
        `${AT}.messageExpression: Invalid value: ${goRule('true', '"self.nope"')}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^`,
      ],
    ],
    [
      'a messageExpression that is not a string',
      { rule: 'true', messageExpression: 'self.replicas' },
      [
        `${AT}.messageExpression: Invalid value: ${goRule('true', '"self.replicas"')}: messageExpression must evaluate to a string`,
      ],
    ],
  ];
  it.each(cases)('%s', (_name, rule, expected) => {
    expect(compileErrors([rule])).toEqual(expected);
  });

  const accepted: string[] = [
    'self.replicas >= 0',
    'self.name.startsWith("a")',
    'has(self.name) && self.name.size() < 10',
    'self.tags.all(t, t.size() < 5)',
    'self.labels.exists(k, self.labels[k] == "x")',
    'self.?name.orValue("") != "x"',
    'self.x__dash__name == "a"',
    'self.__namespace__ == "a"',
    'type(self.port) == int ? self.port > 0 : self.port.endsWith("%")',
    'self.timeout < duration("1h")',
    'self.startAt > timestamp("2020-01-01T00:00:00Z")',
    'self.template.metadata.name == "x" && self.template.kind == "Pod" && self.template.apiVersion == "v1"',
    'self == oldSelf',
    'self.tags.isSorted() && self.tags.indexOf("a") >= 0',
  ];
  it.each(accepted)('accepts %s', (rule) => {
    expect(compileErrors([{ rule }])).toEqual([]);
  });

  it('refuses fields the embedded resource does not declare', () => {
    expect(compileErrors([{ rule: 'self.template.spec == 1' }])[0]).toContain("undefined field 'spec'");
  });

  it('offers metadata.name and generateName at the root only, not other metadata fields', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.metadata.name.startsWith("a")' },
        { rule: 'self.metadata.labels.size() > 0' },
      ],
    };
    const errors = compileSchemaValidations(schema, ROOT).errors.map(fieldErrorMessage);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${ROOT}.x-kubernetes-validations[1].rule`);
    expect(errors[0]).toContain("undefined field 'labels'");
  });

  it('refuses oldSelf under the items of an atomic list', () => {
    const properties: Record<string, JSONSchemaProps> = {
      items: {
        type: 'array',
        maxItems: 5,
        items: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
      },
    };
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties } } };
    expect(compileSchemaValidations(schema, ROOT).errors.map(fieldErrorMessage)).toEqual([
      `${ROOT}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[spec].properties[items]`,
    ]);
  });

  it('compiles optionalOldSelf rules with oldSelf optional', () => {
    expect(
      compileErrors([
        { rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true },
      ]),
    ).toEqual([]);
    expect(compileErrors([{ rule: 'oldSelf.hasValue()' }])[0]).toContain('compilation failed');
  });
});

describe('cost estimates', () => {
  const UNBOUNDED: Record<string, JSONSchemaProps> = {
    names: { type: 'array', items: { type: 'string' } },
  };
  const BOUNDED: Record<string, JSONSchemaProps> = {
    names: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } },
  };
  const rule = 'self.names.all(n, n.matches("^[a-z]+$"))';

  it('refuses a rule over unbounded lists of unbounded strings', () => {
    expect(compileErrors([{ rule }], UNBOUNDED)).toEqual([
      `${AT}.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${AT}.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  it('accepts the same rule once maxItems and maxLength bound the sizes', () => {
    expect(compileErrors([{ rule }], BOUNDED)).toEqual([]);
  });

  it('multiplies a rule under unbounded list items by how many items fit in a request', () => {
    const properties: Record<string, JSONSchemaProps> = {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 3000 } },
          'x-kubernetes-validations': [{ rule: 'self.name.contains("x") && self.name.endsWith("y")' }],
        },
      },
    };
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties } } };
    const errors = compileSchemaValidations(schema, ROOT).errors.map(fieldErrorMessage);
    expect(errors[0]).toMatch(
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[items\]\.items\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of /,
    );
  });
});

describe('evaluation', () => {
  it('reports a failed rule at the node with the schema type as value', () => {
    expect(validate([{ rule: 'self.replicas >= 0' }], { replicas: -1 })).toEqual([
      'spec: Invalid value: "object": failed rule: self.replicas >= 0',
    ]);
    expect(validate([{ rule: 'self.replicas >= 0' }], { replicas: 1 })).toEqual([]);
  });

  it('uses message, messageExpression, reason and fieldPath', () => {
    const rules: ValidationRule[] = [
      { rule: 'self.replicas < 10', message: 'too many' },
      {
        rule: 'self.name != "bad"',
        messageExpression: '"name " + self.name + " is not allowed"',
        reason: 'FieldValueForbidden',
      },
      {
        rule: 'has(self.tags)',
        message: 'tags are required',
        reason: 'FieldValueRequired',
        fieldPath: '.tags',
      },
      { rule: 'self.replicas != 11', reason: 'FieldValueDuplicate' },
      { rule: 'self.replicas < 5', messageExpression: 'self.name.substring(100)', message: 'fallback' },
    ];
    expect(validate(rules, { replicas: 11, name: 'bad' })).toEqual([
      'spec: Invalid value: "object": too many',
      'spec: Forbidden: name bad is not allowed',
      'spec.tags: Required value: tags are required',
      'spec: Duplicate value: "object"',
      'spec: Invalid value: "object": fallback',
    ]);
  });

  it('formats messages with format(), whose argument list may mix types', () => {
    const rules: ValidationRule[] = [
      {
        rule: 'self.replicas < 3',
        messageExpression: '"%s may run at most %d replicas, not %d".format([self.name, 2, self.replicas])',
      },
    ];
    expect(validate(rules, { replicas: 5, name: 'web' })).toEqual([
      'spec: Invalid value: "object": web may run at most 2 replicas, not 5',
    ]);
  });

  it('reports rules of the root at the nil path, as upstream validates from a nil field.Path', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'integer' } } } },
      'x-kubernetes-validations': [
        { rule: 'self.metadata.name.startsWith("a")', message: 'name must start with a' },
        { rule: 'self.spec.a > 0', message: 'a must be positive', fieldPath: '.spec.a' },
      ],
    };
    const { errors, rules } = compileSchemaValidations(schema, ROOT);
    expect(errors).toEqual([]);
    const object = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'b', labels: { x: 'y' } },
      spec: { a: 0 },
    };
    expect(rules.validate(object, undefined).map(fieldErrorMessage)).toEqual([
      '<nil>: Invalid value: "object": name must start with a',
      'spec.a: Invalid value: "object": a must be positive',
    ]);
  });

  it('reports at a fieldPath through properties and map keys', () => {
    const rules: ValidationRule[] = [
      {
        rule: '!("app" in self.labels) || self.labels["app"] != "x"',
        message: 'no x',
        fieldPath: ".labels['app']",
      },
      { rule: 'self.name != "x"', message: 'no x name', fieldPath: "['name']" },
    ];
    expect(validate(rules, { name: 'x', labels: { app: 'x' } })).toEqual([
      'spec.labels[app]: Invalid value: "object": no x',
      'spec.name: Invalid value: "object": no x name',
    ]);
    expect(compileErrors([{ rule: 'true', fieldPath: '.tags[0]' }])).toEqual([
      `${AT}.fieldPath: Invalid value: ".tags[0]": fieldPath must be a valid path`,
    ]);
  });

  it('reports evaluation errors as upstream', () => {
    expect(validate([{ rule: 'self.name == "a"' }], { replicas: 1 })).toEqual([
      'spec: Invalid value: "object": no such key: name evaluating rule: self.name == "a"',
    ]);
    expect(
      validate(
        [
          { rule: 'self.tags[5] == "a"' },
          { rule: 'self.replicas / 0 == 1', message: 'divided' },
          { rule: 'self.replicas % 0 == 1' },
        ],
        { replicas: 1, tags: ['a'] },
      ),
    ).toEqual([
      `spec: Invalid value: "object": index '5' out of range in list size '1' evaluating rule: self.tags[5] == "a"`,
      'spec: Invalid value: "object": division by zero evaluating rule: divided',
      'spec: Invalid value: "object": modulus by zero evaluating rule: self.replicas % 0 == 1',
    ]);
  });

  it('skips transition rules without an old value and runs them on updates', () => {
    const rules: ValidationRule[] = [{ rule: 'self.replicas >= oldSelf.replicas', message: 'cannot shrink' }];
    expect(validate(rules, { replicas: 1 })).toEqual([]);
    expect(validate(rules, { replicas: 1 }, { replicas: 2 })).toEqual([
      'spec: Invalid value: "object": cannot shrink',
    ]);
    expect(validate(rules, { replicas: 3 }, { replicas: 2 })).toEqual([]);
  });

  it('binds an optional oldSelf with optionalOldSelf, also on create', () => {
    const rules: ValidationRule[] = [
      { rule: 'oldSelf.hasValue() || self.replicas == 1', message: 'must start at 1', optionalOldSelf: true },
    ];
    expect(validate(rules, { replicas: 2 })).toEqual(['spec: Invalid value: "object": must start at 1']);
    expect(validate(rules, { replicas: 2 }, { replicas: 1 })).toEqual([]);
  });

  it('ratchets: a rule that does not read oldSelf does not fail a value the update left unchanged', () => {
    const rules: ValidationRule[] = [
      { rule: 'self.name.startsWith("a")', message: 'name must start with a' },
      { rule: 'self.replicas >= oldSelf.replicas', message: 'cannot shrink' },
    ];
    expect(validate(rules, { name: 'b', replicas: 1 })).toEqual([
      'spec: Invalid value: "object": name must start with a',
    ]);
    expect(validate(rules, { name: 'b', replicas: 1 }, { name: 'b', replicas: 1 })).toEqual([]);
    expect(validate(rules, { name: 'b', replicas: 2 }, { name: 'b', replicas: 1 })).toEqual([
      'spec: Invalid value: "object": name must start with a',
    ]);
    const { rules: compiled } = compileSchemaValidations(specSchema(rules), ROOT);
    const unchanged = { spec: { name: 'b', replicas: 1 } };
    const result = compiled.validateWithWarnings?.(unchanged, unchanged);
    expect(result?.errors).toEqual([]);
    expect(result?.warnings.map(fieldErrorMessage)).toEqual([
      'spec: Invalid value: "object": name must start with a',
    ]);
  });

  it('compares objects with null and reads null fields as absent', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            name: { type: 'string', nullable: true },
            inner: { type: 'object', nullable: true, properties: { a: { type: 'integer' } } },
          },
          'x-kubernetes-validations': [
            { rule: '!has(self.name) || self.name.size() > 0' },
            { rule: '!has(self.inner) || self.inner != null' },
          ],
        },
      },
    };
    const { errors, rules } = compileSchemaValidations(schema, ROOT);
    expect(errors).toEqual([]);
    expect(rules.validate({ spec: { name: null, inner: null } }, undefined)).toEqual([]);
    expect(compileErrors([{ rule: 'self.name == null' }])[0]).toContain(
      "found no matching overload for '_==_' applied to '(string, null_type)'",
    );
  });

  it('compares whole objects with self == oldSelf', () => {
    const rules: ValidationRule[] = [{ rule: 'self == oldSelf', message: 'spec is immutable' }];
    expect(validate(rules, { replicas: 1, tags: ['a'] }, { replicas: 1, tags: ['a'] })).toEqual([]);
    expect(validate(rules, { replicas: 1, tags: ['b'] }, { replicas: 1, tags: ['a'] })).toEqual([
      'spec: Invalid value: "object": spec is immutable',
    ]);
  });

  it('compares set lists regardless of order and map lists by their keys in self == oldSelf', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }],
          properties: {
            set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            atomic: { type: 'array', items: { type: 'string' } },
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
            },
          },
        },
      },
    };
    const { rules } = compileSchemaValidations(schema, ROOT);
    const old = {
      spec: {
        set: ['a', 'b'],
        atomic: ['a', 'b'],
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 2 },
        ],
      },
    };
    const reordered = {
      spec: {
        set: ['b', 'a'],
        atomic: ['a', 'b'],
        ports: [
          { name: 'b', port: 2 },
          { name: 'a', port: 1 },
        ],
      },
    };
    expect(rules.validate(reordered, old)).toEqual([]);
    const atomicReordered = { spec: { ...old.spec, atomic: ['b', 'a'] } };
    expect(rules.validate(atomicReordered, old).map(fieldErrorMessage)).toEqual([
      'spec: Invalid value: "object": immutable',
    ]);
    const portChanged = {
      spec: {
        ...old.spec,
        ports: [
          { name: 'b', port: 3 },
          { name: 'a', port: 1 },
        ],
      },
    };
    expect(rules.validate(portChanged, old).map(fieldErrorMessage)).toEqual([
      'spec: Invalid value: "object": immutable',
    ]);
  });

  it('gives int-or-string, durations, timestamps and escaped names their CEL types', () => {
    const rules: ValidationRule[] = [
      { rule: 'type(self.port) == int ? self.port > 0 : self.port.endsWith("%")' },
      { rule: 'self.timeout <= duration("1h")' },
      { rule: 'self.startAt > timestamp("2020-01-01T00:00:00Z")' },
      { rule: 'self.x__dash__name == "ok"' },
    ];
    expect(
      validate(rules, { port: '50%', timeout: '30m', startAt: '2021-05-01T00:00:00Z', 'x-name': 'ok' }),
    ).toEqual([]);
    expect(
      validate(rules, { port: 0, timeout: '2h', startAt: '2019-05-01T00:00:00Z', 'x-name': 'no' }),
    ).toEqual([
      'spec: Invalid value: "object": failed rule: type(self.port) == int ? self.port > 0 : self.port.endsWith("%")',
      'spec: Invalid value: "object": failed rule: self.timeout <= duration("1h")',
      'spec: Invalid value: "object": failed rule: self.startAt > timestamp("2020-01-01T00:00:00Z")',
      'spec: Invalid value: "object": failed rule: self.x__dash__name == "ok"',
    ]);
  });

  it('evaluates rules of list items, map values and nested objects at their paths', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string' }, port: { type: 'integer' } },
                'x-kubernetes-validations': [
                  { rule: 'self.port > 0', message: 'port must be positive' },
                  { rule: 'self.port == oldSelf.port', message: 'port is immutable' },
                ],
              },
            },
            limits: {
              type: 'object',
              additionalProperties: {
                type: 'integer',
                'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'cannot lower a limit' }],
              },
            },
            tags: {
              type: 'array',
              items: {
                type: 'string',
                'x-kubernetes-validations': [{ rule: 'self.size() < 4', message: 'tag too long' }],
              },
            },
          },
        },
      },
    };
    const { errors, rules } = compileSchemaValidations(schema, ROOT);
    expect(errors.map(fieldErrorMessage)).toEqual([]);
    const old = {
      spec: {
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
        limits: { a: 5, b: 5 },
      },
    };
    const updated = {
      spec: {
        ports: [
          { name: 'https', port: 8443 },
          { name: 'http', port: 80 },
          { name: 'new', port: -1 },
        ],
        limits: { a: 4, b: 6, c: 1 },
        tags: ['ok', 'toolong'],
      },
    };
    expect(rules.validate(updated, old).map(fieldErrorMessage)).toEqual([
      'spec.ports[0]: Invalid value: "object": port is immutable',
      'spec.ports[2]: Invalid value: "object": port must be positive',
      'spec.limits[a]: Invalid value: "integer": cannot lower a limit',
      'spec.tags[1]: Invalid value: "string": tag too long',
    ]);
  });

  it('evaluates rules of a node the type of its parent does not expose', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        a: {
          type: 'object',
          properties: {
            b: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 10', message: 'b too big' }] },
          },
          additionalProperties: { type: 'string' },
        },
      },
    };
    const { errors, rules } = compileSchemaValidations(schema, ROOT);
    expect(errors).toEqual([]);
    expect(rules.validate({ a: { b: 11 } }, undefined).map(fieldErrorMessage)).toEqual([
      'a.b: Invalid value: "integer": b too big',
    ]);
  });

  it('compiles once per schema and evaluates 3 rules on a 20-field object', () => {
    const properties: Record<string, JSONSchemaProps> = {};
    const spec: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) {
      properties[`field${i}`] = i % 2 === 0 ? { type: 'string', maxLength: 64 } : { type: 'integer' };
      spec[`field${i}`] = i % 2 === 0 ? `value${i}` : i;
    }
    const schema = specSchema(
      [
        { rule: 'self.field1 < self.field3' },
        { rule: 'self.field0.startsWith("value")' },
        { rule: 'self.field5 == oldSelf.field5' },
      ],
      properties,
    );
    const first = compileSchemaValidations(schema, ROOT);
    expect(compileSchemaValidations(schema, ROOT)).toBe(first);
    expect(first.errors).toEqual([]);
    const object = { spec };
    // An old object that differs, so that validation ratcheting skips nothing.
    const old = { spec: { ...spec, field3: 100 } };
    expect(first.rules.validate(object, old)).toEqual([]);
  });

  describe('runtime cost', () => {
    const names = (count: number): string[] => Array.from({ length: count }, (_, i) => `name-${i}`);
    const pairwise = 'self.names.all(a, self.names.all(b, a != b || true))';

    it('stops at a rule whose cost exceeds the per-call limit', () => {
      const schema: JSONSchemaProps = {
        type: 'object',
        properties: { names: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 10 } } },
        'x-kubernetes-validations': [{ rule: pairwise }, { rule: 'false', message: 'never reached' }],
      };
      const { errors, rules } = compileSchemaValidations(schema, ROOT);
      expect(errors.map(fieldErrorMessage)).toEqual([]);
      expect(rules.validate({ names: names(100) }, undefined).map(fieldErrorMessage)).toEqual([
        '<nil>: Invalid value: "object": never reached',
      ]);
      expect(rules.validate({ names: names(1000) }, undefined).map(fieldErrorMessage)).toEqual([
        `<nil>: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${pairwise}`,
      ]);
    });

    it('stops once the rules of one object have spent the runtime budget', () => {
      const itemSchema: JSONSchemaProps = {
        type: 'object',
        properties: { names: { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 10 } } },
        'x-kubernetes-validations': [{ rule: pairwise }],
      };
      const list: JSONSchemaProps = { type: 'array', maxItems: 20, items: itemSchema };
      const schema: JSONSchemaProps = { type: 'object', properties: { a: list, b: list, c: list } };
      const { errors, rules } = compileSchemaValidations(schema, ROOT);
      expect(errors.map(fieldErrorMessage)).toEqual([]);
      const items = Array.from({ length: 20 }, () => ({ names: names(200) }));
      expect(rules.validate({ a: items.slice(0, 10), b: items.slice(0, 10) }, undefined)).toEqual([]);
      const found = rules.validate({ a: items, b: items, c: items }, undefined).map(fieldErrorMessage);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(
        /^[abc]\[\d+\]: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run$/,
      );
    });
  });
});

describe('blockingSchemaError', () => {
  it('stands in for the rules when schema validation found a mistyped, missing or oversized value', () => {
    const typeError = {
      type: 'FieldValueTypeInvalid' as const,
      field: 'spec.replicas',
      badValue: 'x',
      detail: 'must be integer',
    };
    const blocking = blockingSchemaError([typeError]);
    expect(blocking && fieldErrorMessage(blocking)).toBe(
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
    expect(
      blockingSchemaError([{ type: 'FieldValueInvalid', field: 'spec.x', badValue: 1, detail: 'bad' }]),
    ).toBeUndefined();
  });
});

describe('bad input', () => {
  const rules: unknown[] = [
    '(',
    'self..a',
    '"unterminated',
    'self.all(x)',
    'has(1)',
    '\u0000',
    'b"\\xzz"',
    '1.2.3',
    'self in',
    '('.repeat(5000) + ')'.repeat(5000),
    `[${'1,'.repeat(20000)}1]`,
    'self.a.find("(")',
    'duration(1)',
    123,
    null,
  ];
  it.each(rules.map((rule) => [String(rule).slice(0, 30), rule]))(
    '%s neither throws when compiled nor when evaluated',
    (_name, rule) => {
      const schema = {
        type: 'object',
        properties: { a: { type: 'string' } },
        'x-kubernetes-validations': [{ rule, messageExpression: rule }],
      } as JSONSchemaProps;
      const { rules: compiled } = compileSchemaValidations(schema, ROOT);
      expect(() => compiled.validate({ a: 5, metadata: { name: 'n' } }, { a: [] })).not.toThrow();
      expect(() => compiled.validate(null, 'x')).not.toThrow();
    },
  );
});
