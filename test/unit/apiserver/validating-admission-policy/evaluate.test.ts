// Evaluation of one compiled policy (upstream's validator.go and cel filter.go): decisions,
// message fallbacks, match conditions under each failurePolicy, lazy variables, the per-call
// cost limit and audit annotation results.
import { describe, expect, it } from 'vitest';
import type { ValidatingAdmissionPolicySpec } from '../../../../src/api/types/admissionregistration-v1.generated.js';
import { compilePolicy } from '../../../../src/apiserver/admission/validating-admission-policy/compile.js';
import {
  type EvaluationResult,
  evaluatePolicy,
} from '../../../../src/apiserver/admission/validating-admission-policy/evaluate.js';
import { type AuthzCheckAttributes, CelAuthorizer } from '../../../../src/apiserver/cel/library/authz.js';

const object = { metadata: { name: 'web', labels: { tier: 'front' } }, spec: { replicas: 3 } };

function evaluate(
  spec: ValidatingAdmissionPolicySpec,
  input: { params?: unknown; object?: unknown } = {},
): EvaluationResult {
  const policy = compilePolicy({
    metadata: { name: 'p', generation: 1 },
    spec: { failurePolicy: 'Fail', ...spec },
  });
  return evaluatePolicy(policy, {
    object: input.object ?? object,
    oldObject: null,
    request: { operation: 'CREATE' },
    namespaceObject: null,
    params: input.params ?? null,
  });
}

const deny = (message: string, reason = 'Invalid') => ({ action: 'deny', error: false, message, reason });
const admit = { action: 'admit', error: false, message: '', reason: '' };
const failed = (message: string) => ({ action: 'deny', error: true, message, reason: '' });

describe('evaluatePolicy', () => {
  const cases: [string, ValidatingAdmissionPolicySpec, unknown[]][] = [
    ['a passing validation admits', { validations: [{ expression: 'object.spec.replicas == 3' }] }, [admit]],
    [
      'a failure without message names the expression',
      { validations: [{ expression: ' object.spec.replicas < 3 ' }] },
      [deny('failed expression: object.spec.replicas < 3')],
    ],
    [
      'the message, trimmed, with the reason',
      { validations: [{ expression: 'false', message: ' no ', reason: 'Forbidden' }] },
      [deny('no', 'Forbidden')],
    ],
    [
      'messageExpression wins over message',
      {
        validations: [
          { expression: 'false', message: 'static', messageExpression: "'name ' + object.metadata.name" },
        ],
      },
      [deny('name web')],
    ],
    [
      'an empty messageExpression result falls back to the message',
      { validations: [{ expression: 'false', message: 'static', messageExpression: "' '" }] },
      [deny('static')],
    ],
    [
      'a failing messageExpression falls back to the message',
      {
        validations: [
          { expression: 'false', message: 'static', messageExpression: "'x' + object.spec.replicas" },
        ],
      },
      [deny('static')],
    ],
    [
      'a runtime error is denied under Fail',
      { validations: [{ expression: 'object.spec.nope == 1' }] },
      [failed("expression 'object.spec.nope == 1' resulted in error: no such key: nope")],
    ],
    [
      'a runtime error is admitted under Ignore',
      { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.nope == 1' }] },
      [
        {
          action: 'admit',
          error: true,
          message: "expression 'object.spec.nope == 1' resulted in error: no such key: nope",
          reason: '',
        },
      ],
    ],
    [
      'variables are shared and evaluated lazily',
      {
        variables: [
          { name: 'replicas', expression: 'object.spec.replicas' },
          { name: 'odd', expression: 'variables.replicas % 2 == 1' },
          { name: 'broken', expression: 'object.spec.nope' },
        ],
        validations: [
          { expression: 'variables.odd' },
          { expression: 'variables.replicas > 5', message: 'few' },
        ],
      },
      [admit, deny('few')],
    ],
    [
      'an erring variable fails the validations that read it',
      {
        variables: [{ name: 'broken', expression: 'object.spec.nope' }],
        validations: [{ expression: 'variables.broken == 1' }],
      },
      [failed("expression 'object.spec.nope' resulted in error: no such key: nope")],
    ],
    [
      'a runtime cost over the per-call limit',
      {
        validations: [
          { expression: 'object.items.all(x, object.items.all(y, object.items.all(z, x != y)))' },
        ],
      },
      [
        failed(
          "expression 'object.items.all(x, object.items.all(y, object.items.all(z, x != y)))' resulted in error: operation cancelled: actual cost limit exceeded",
        ),
      ],
    ],
  ];
  it.each(cases)('%s', (_name, spec, decisions) => {
    const input = spec.validations?.[0]?.expression.includes('object.items')
      ? { object: { items: Array.from({ length: 200 }, (_, i) => `i${i}`) } }
      : {};
    expect(evaluate(spec, input).decisions).toEqual(decisions);
  });

  it('skips the policy when a match condition is false, and follows failurePolicy on errors', () => {
    const validations = [{ expression: 'false' }];
    expect(
      evaluate({
        matchConditions: [{ name: 'a', expression: "object.metadata.name == 'api'" }],
        validations,
      }),
    ).toEqual({
      matched: false,
      decisions: [],
      auditAnnotations: [],
    });
    const erring = [
      { name: 'a', expression: 'object.spec.nope' },
      { name: 'b', expression: 'true' },
    ];
    expect(evaluate({ matchConditions: erring, validations }).decisions).toEqual([
      failed("expression 'object.spec.nope' resulted in error: no such key: nope"),
    ]);
    expect(evaluate({ failurePolicy: 'Ignore', matchConditions: erring, validations }).matched).toBe(false);
  });

  it('publishes audit annotations and refuses non-string values', () => {
    expect(
      evaluate({
        auditAnnotations: [{ key: 'replicas', valueExpression: "'n=' + string(object.spec.replicas)" }],
      }).auditAnnotations,
    ).toEqual([{ key: 'replicas', value: 'n=3' }]);
    expect(
      evaluate({ auditAnnotations: [{ key: 'none', valueExpression: 'null' }] }).auditAnnotations,
    ).toEqual([]);
    expect(
      evaluate({ auditAnnotations: [{ key: 'n', valueExpression: 'object.spec.replicas' }] }).decisions,
    ).toEqual([
      failed(
        "valueExpression 'object.spec.replicas' resulted in unsupported return type: int. Return type must be either string or null.",
      ),
    ]);
  });

  it("asks the authorizer as the requesting user, for a resource or the request's own resource", () => {
    const asked: AuthzCheckAttributes[] = [];
    const authorizer = new CelAuthorizer(
      (user, attributes) => {
        asked.push(attributes);
        return { decision: user.name === 'alice' ? 'allow' : 'noOpinion', reason: 'because' };
      },
      { name: 'alice', groups: [] },
      { group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'web' },
    );
    const policy = compilePolicy({
      metadata: { name: 'p' },
      spec: {
        failurePolicy: 'Fail',
        validations: [
          { expression: "authorizer.requestResource.check('update').allowed()" },
          {
            expression:
              "authorizer.group('').resource('secrets').namespace('ns').name('s').check('get').reason() == 'because'",
          },
          { expression: "!authorizer.serviceAccount('ns', 'bot').path('/healthz').check('GET').allowed()" },
        ],
      },
    });
    const result = evaluatePolicy(policy, {
      object,
      oldObject: null,
      request: {},
      namespaceObject: null,
      params: null,
      authorizer,
    });
    expect(result.decisions).toEqual([admit, admit, admit]);
    expect(asked).toEqual([
      {
        verb: 'update',
        isResourceRequest: true,
        path: '',
        apiGroup: 'apps',
        resource: 'deployments',
        subresource: 'scale',
        namespace: 'ns',
        name: 'web',
      },
      {
        verb: 'get',
        isResourceRequest: true,
        path: '',
        apiGroup: '',
        resource: 'secrets',
        subresource: '',
        namespace: 'ns',
        name: 's',
      },
      {
        verb: 'get',
        isResourceRequest: false,
        path: '/healthz',
        apiGroup: '',
        resource: '',
        subresource: '',
        namespace: '',
        name: '',
      },
    ]);
  });
});
