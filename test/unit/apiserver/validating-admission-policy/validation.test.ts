// Validation and defaulting of ValidatingAdmissionPolicy and its binding, with upstream's field
// error texts (pkg/apis/admissionregistration/validation), CEL compile errors included.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/api/object.js';
import { fieldErrorMessage } from '../../../../src/api/selectors/index.js';
import {
  defaultValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyUpdate,
} from '../../../../src/apiserver/registry/validation/admissionregistration/validating-admission-policy.js';
import {
  defaultValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyBinding,
} from '../../../../src/apiserver/registry/validation/admissionregistration/validating-admission-policy-binding.js';

const rules = [
  { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
];

function policy(spec: Record<string, unknown>): KubeObject {
  const object: KubeObject = {
    metadata: { name: 'p' },
    spec: { matchConstraints: { resourceRules: rules }, validations: [{ expression: 'true' }], ...spec },
  };
  defaultValidatingAdmissionPolicy(object);
  return object;
}

function binding(spec: Record<string, unknown>): KubeObject {
  const object: KubeObject = {
    metadata: { name: 'b' },
    spec: { policyName: 'p', validationActions: ['Deny'], ...spec },
  };
  defaultValidatingAdmissionPolicyBinding(object);
  return object;
}

const messages = (errors: ReturnType<typeof validateValidatingAdmissionPolicy>) =>
  errors.map(fieldErrorMessage);

describe('ValidatingAdmissionPolicy validation', () => {
  it('defaults failurePolicy, matchPolicy, selectors and rule scope', () => {
    const object = policy({});
    expect(object.spec).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ scope: '*' }],
      },
    });
    expect(validateValidatingAdmissionPolicy(object)).toEqual([]);
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    [
      'no validations nor audit annotations',
      { validations: [] },
      [
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ],
    ],
    ['no matchConstraints', { matchConstraints: undefined }, ['spec.matchConstraints: Required value']],
    [
      'no resource rules',
      { matchConstraints: { resourceRules: [] } },
      ['spec.matchConstraints.resourceRules: Required value'],
    ],
    [
      'a bad failurePolicy',
      { failurePolicy: 'Maybe' },
      ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
    ],
    [
      'an empty expression',
      { validations: [{ expression: ' ' }] },
      ['spec.validations[0].expression: Required value: expression is not specified'],
    ],
    [
      'an undeclared reference',
      { validations: [{ expression: 'self.x > 1' }] },
      [
        "spec.validations[0].expression: Invalid value: \"self.x > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self.x > 1\n | ^",
      ],
    ],
    [
      'params without a paramKind',
      { validations: [{ expression: 'params.x == 1' }] },
      [
        "spec.validations[0].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
      ],
    ],
    [
      'a non-bool expression',
      { validations: [{ expression: "'a'" }] },
      ['spec.validations[0].expression: Invalid value: "\'a\'": must evaluate to bool'],
    ],
    [
      'a message with a line break and a bad reason',
      { validations: [{ expression: 'true', message: 'a\nb', reason: 'Teapot' }] },
      [
        'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks',
        'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      ],
    ],
    [
      'a messageExpression of the wrong type',
      { validations: [{ expression: 'true', messageExpression: '1' }] },
      ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string'],
    ],
    [
      'a bad variable name',
      { variables: [{ name: 'in', expression: '1' }] },
      ['spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier'],
    ],
    [
      'a read of a variable declared later',
      {
        variables: [
          { name: 'a', expression: 'variables.b + 1' },
          { name: 'b', expression: '1' },
        ],
        validations: [{ expression: 'variables.a > variables.c' }],
      },
      [
        'spec.variables[0].expression: Invalid value: "variables.b + 1": compilation failed: ERROR: <input>:1:10: undefined field \'b\'\n | variables.b + 1\n | .........^',
        'spec.validations[0].expression: Invalid value: "variables.a > variables.c": compilation failed: ERROR: <input>:1:24: undefined field \'c\'\n | variables.a > variables.c\n | .......................^',
      ],
    ],
    [
      'variables read by a policy without any',
      { validations: [{ expression: 'variables.a' }] },
      [
        "spec.validations[0].expression: Invalid value: \"variables.a\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.a\n | ^",
      ],
    ],
    [
      'a match condition reading variables',
      {
        variables: [{ name: 'a', expression: 'true' }],
        matchConditions: [{ name: 'm', expression: 'variables.a' }],
      },
      [
        "spec.matchConditions[0].expression: Invalid value: \"variables.a\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.a\n | ^",
      ],
    ],
    [
      'duplicate match condition names',
      {
        matchConditions: [
          { name: 'a', expression: 'true' },
          { name: 'a', expression: 'true' },
        ],
      },
      ['spec.matchConditions[1].name: Duplicate value: "a"'],
    ],
    [
      'a paramKind without kind',
      { paramKind: { apiVersion: 'v1' } },
      ['spec.paramKind.kind: Required value'],
    ],
    [
      'a rule with * and other operations',
      { matchConstraints: { resourceRules: [{ ...rules[0], operations: ['*', 'CREATE'] }] } },
      [
        'spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations',
      ],
    ],
    [
      'an audit annotation without valueExpression',
      { validations: [], auditAnnotations: [{ key: 'k', valueExpression: '' }] },
      ['spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified'],
    ],
  ];
  it.each(cases)('%s', (_name, spec, expected) => {
    expect(messages(validateValidatingAdmissionPolicy(policy(spec)))).toEqual(expected);
  });

  it('refuses a syntax error with where cel-go points (the wording after "Syntax error:" is the CEL library\'s)', () => {
    const [error] = validateValidatingAdmissionPolicy(
      policy({ validations: [{ expression: 'object.x ==' }] }),
    );
    expect(fieldErrorMessage(error!)).toMatch(
      /^spec\.validations\[0\]\.expression: Invalid value: "object\.x ==": compilation failed: ERROR: <input>:1:12: Syntax error: /,
    );
  });

  it('accepts every binding of the admission environment', () => {
    const object = policy({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
      validations: [
        {
          expression:
            "variables.replicas <= int(params.data.max) && request.operation == 'CREATE' && namespaceObject.metadata.name != '' && oldObject == null && authorizer.group('apps').resource('deployments').check('get').allowed()",
          messageExpression: "'at most ' + params.data.max",
        },
      ],
      auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
    });
    expect(validateValidatingAdmissionPolicy(object)).toEqual([]);
  });

  it('defaults and refuses a matchConstraints that is no object without throwing', () => {
    const object: KubeObject = {
      metadata: { name: 'p' },
      spec: { matchConstraints: 'all', validations: [{ expression: 'true' }] },
    };
    defaultValidatingAdmissionPolicy(object);
    expect(messages(validateValidatingAdmissionPolicy(object))).toEqual([
      'spec.matchConstraints.matchPolicy: Required value',
      'spec.matchConstraints.namespaceSelector: Required value',
      'spec.matchConstraints.labelSelector: Required value',
      'spec.matchConstraints.resourceRules: Required value',
    ]);
  });

  it('checks only expression warnings on a status update', () => {
    const object = policy({});
    const withStatus = {
      ...object,
      status: { typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] } },
    };
    expect(messages(validateValidatingAdmissionPolicyUpdate(withStatus, object, 'status'))).toEqual([
      'status.typeChecking.expressionWarnings[0].warning: Required value',
      'status.typeChecking.expressionWarnings[0].fieldRef: Required value',
    ]);
  });
});

describe('ValidatingAdmissionPolicyBinding validation', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['a valid binding', {}, []],
    ['no policyName', { policyName: '' }, ['spec.policyName: Required value']],
    [
      'no validation actions',
      { validationActions: [] },
      ['spec.validationActions: Required value: at least one validation action is required'],
    ],
    [
      'Deny with Warn',
      { validationActions: ['Deny', 'Warn'] },
      [
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    ],
    [
      'an unknown and a duplicate action',
      { validationActions: ['Audit', 'Log', 'Audit'] },
      [
        'spec.validationActions[1]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
        'spec.validationActions[2]: Duplicate value: "Audit"',
      ],
    ],
    [
      'paramRef with name and selector',
      { paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } },
      [
        'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
        'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      ],
    ],
    [
      'paramRef with neither, and no parameterNotFoundAction',
      { paramRef: { namespace: 'x' } },
      [
        'spec.paramRef: Required value: one of name or selector must be specified',
        'spec.paramRef.parameterNotFoundAction: Required value',
      ],
    ],
    [
      'a bad parameterNotFoundAction',
      { paramRef: { name: 'a', parameterNotFoundAction: 'Skip' } },
      ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Skip": supported values: "Deny", "Allow"'],
    ],
  ];
  it.each(cases)('%s', (_name, spec, expected) => {
    expect(messages(validateValidatingAdmissionPolicyBinding(binding(spec)))).toEqual(expected);
  });
});
