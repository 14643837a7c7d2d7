// The ValidatingAdmissionPolicy plugin on a real store: policies and bindings written to the
// store, requests evaluated as upstream's dispatcher does (Deny with the validation's reason,
// Warn as a warning, params by name and selector, parameterNotFoundAction, matchConditions,
// variables, messageExpression, failurePolicy, the authorizer library).
import { describe, expect, it, onTestFinished } from 'vitest';
import type { KubeObject } from '../../../../src/api/object.js';
import { BUILTIN_RESOURCES } from '../../../../src/api/resources/builtin.js';
import type { ResourceInfo } from '../../../../src/api/resources/types.js';
import type { AdmissionAttributes } from '../../../../src/apiserver/admission/chain.js';
import { ObjectCache } from '../../../../src/apiserver/admission/object-cache.js';
import { validatingAdmissionPolicy } from '../../../../src/apiserver/admission/validating-admission-policy/index.js';
import { StatusError } from '../../../../src/apiserver/status.js';
import { openStore } from '../../storage/support.js';

const POLICIES = '/registry/admissionregistration.k8s.io/validatingadmissionpolicies/';
const BINDINGS = '/registry/admissionregistration.k8s.io/validatingadmissionpolicybindings/';

function info(group: string, resource: string): ResourceInfo {
  return BUILTIN_RESOURCES.find((r) => r.group === group && r.resource === resource)!;
}
const served = BUILTIN_RESOURCES.map((resource) => ({
  info: resource,
  root: `/registry/${resource.group === '' ? '' : `${resource.group}/`}${resource.resource}/`,
}));

async function setUp(authorizeAllows = true) {
  const { store } = openStore();
  const namespaces = new ObjectCache(store, '/registry/namespaces/');
  const wiring = validatingAdmissionPolicy({
    store,
    policyRoot: POLICIES,
    bindingRoot: BINDINGS,
    resources: () => served,
    namespaces,
    authorize: () => ({ decision: authorizeAllows ? 'allow' : 'noOpinion', reason: '' }),
  });
  await wiring.start();
  onTestFinished(() => wiring.stop());
  const put = async (prefix: string, name: string, object: object) => {
    const key = `${prefix}${name}`;
    const text = JSON.stringify(object);
    if (await store.get(key)) await store.update(key, text);
    else await store.create(key, text);
  };
  return {
    store,
    policy: (name: string, spec: object, generation = 1) =>
      put(POLICIES, name, { metadata: { name, generation }, spec: { failurePolicy: 'Fail', ...spec } }),
    binding: (name: string, spec: object) => put(BINDINGS, name, { metadata: { name }, spec }),
    namespace: (name: string, labels: Record<string, string>) =>
      put('/registry/namespaces/', name, { metadata: { name, labels } }),
    configMap: (namespace: string, name: string, data: object, labels: Record<string, string> = {}) =>
      put(`/registry/configmaps/${namespace}/`, name, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace, name, labels },
        data,
      }),
    plugin: wiring.plugin,
    validate: async (attributes: AdmissionAttributes) => {
      await wiring.plugin.validate?.(attributes);
      return attributes.warnings;
    },
  };
}

function deployment(name: string, replicas: number, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'team-a', labels },
    spec: { replicas },
  };
}

function create(object: KubeObject, group = 'apps', resource = 'deployments'): AdmissionAttributes {
  return {
    operation: 'CREATE',
    resource: info(group, resource),
    subresource: '',
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
    object,
    user: { name: 'alice', groups: ['devs'] },
    dryRun: false,
    warnings: [],
  };
}

const deployments = {
  resourceRules: [
    {
      operations: ['CREATE', 'UPDATE'],
      apiGroups: ['apps'],
      apiVersions: ['v1'],
      resources: ['deployments'],
    },
  ],
};

async function refusal(promise: Promise<unknown>): Promise<StatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StatusError);
  return error as StatusError;
}

describe('ValidatingAdmissionPolicy admission', () => {
  it('denies with 422 Invalid and upstream message, or the validation reason', async () => {
    const t = await setUp();
    await t.policy('max-replicas', {
      matchConstraints: deployments,
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many replicas' }],
    });
    await t.binding('max-replicas-binding', { policyName: 'max-replicas', validationActions: ['Deny'] });
    await expect(t.validate(create(deployment('small', 3)))).resolves.toEqual([]);
    const error = await refusal(t.validate(create(deployment('big', 7))));
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.message).toBe(
      `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: too many replicas`,
    );
    expect(error.details?.causes).toEqual([
      {
        message: `ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: too many replicas`,
      },
    ]);
    await t.policy(
      'max-replicas',
      {
        matchConstraints: deployments,
        validations: [{ expression: 'object.spec.replicas <= 5', reason: 'Forbidden' }],
      },
      2,
    );
    const forbidden = await refusal(t.validate(create(deployment('big', 7))));
    expect(forbidden.code).toBe(403);
    expect(forbidden.reason).toBe('Forbidden');
    expect(forbidden.message).toContain('denied request: failed expression: object.spec.replicas <= 5');
  });

  it('warns instead of denying for Warn, and ignores what it does not match', async () => {
    const t = await setUp();
    await t.policy('p', {
      matchConstraints: deployments,
      validations: [{ expression: 'false', message: 'nope' }],
    });
    await t.binding('b', { policyName: 'p', validationActions: ['Warn', 'Audit'] });
    await expect(t.validate(create(deployment('x', 1)))).resolves.toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': nope",
    ]);
    const configMap = { metadata: { name: 'c', namespace: 'team-a' } };
    await expect(t.validate(create(configMap, '', 'configmaps'))).resolves.toEqual([]);
    // A request no policy's rules select is answered without a promise.
    expect(t.plugin.validate?.(create(configMap, '', 'configmaps'))).toBeUndefined();
  });

  it('uses messageExpression, variables and matchConditions', async () => {
    const t = await setUp();
    await t.policy('p', {
      matchConstraints: deployments,
      matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" }],
      variables: [{ name: 'limit', expression: '4' }],
      validations: [
        {
          expression: 'object.spec.replicas <= variables.limit',
          messageExpression:
            "'replicas ' + string(object.spec.replicas) + ' over ' + string(variables.limit)",
        },
      ],
    });
    await t.binding('b', { policyName: 'p', validationActions: ['Deny'] });
    const error = await refusal(t.validate(create(deployment('x', 9))));
    expect(error.message).toContain('denied request: replicas 9 over 4');
    await expect(t.validate(create(deployment('x', 9, { exempt: 'yes' })))).resolves.toEqual([]);
  });

  it('reads params by name and by selector, and honours parameterNotFoundAction', async () => {
    const t = await setUp();
    await t.policy('p', {
      matchConstraints: deployments,
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [
        {
          expression: 'object.spec.replicas <= int(params.data.max)',
          messageExpression: "'max is ' + params.data.max",
        },
      ],
    });
    await t.configMap('team-a', 'limits', { max: '2' });
    await t.binding('by-name', {
      policyName: 'p',
      validationActions: ['Deny'],
      paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
    });
    expect((await refusal(t.validate(create(deployment('x', 3))))).message).toContain(
      "binding 'by-name' denied request: max is 2",
    );
    await t.binding('by-name', {
      policyName: 'p',
      validationActions: ['Deny'],
      paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' },
    });
    expect((await refusal(t.validate(create(deployment('x', 1))))).message).toContain(
      "binding 'by-name' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    await t.binding('by-name', {
      policyName: 'p',
      validationActions: ['Deny'],
      paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' },
    });
    await expect(t.validate(create(deployment('x', 100)))).resolves.toEqual([]);
    // By selector: every selected param must pass.
    await t.configMap('shared', 'loose', { max: '10' }, { policy: 'replicas' });
    await t.configMap('shared', 'strict', { max: '4' }, { policy: 'replicas' });
    await t.binding('by-name', {
      policyName: 'p',
      validationActions: ['Warn'],
      paramRef: {
        namespace: 'shared',
        selector: { matchLabels: { policy: 'replicas' } },
        parameterNotFoundAction: 'Deny',
      },
    });
    await expect(t.validate(create(deployment('x', 6)))).resolves.toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'by-name': max is 4",
    ]);
  });

  it('reads namespaceObject and request, and narrows by the binding namespaceSelector', async () => {
    const t = await setUp();
    await t.namespace('team-a', { env: 'prod' });
    await t.policy('p', {
      matchConstraints: deployments,
      validations: [
        {
          expression: "namespaceObject.metadata.labels.env != 'prod' || request.userInfo.username != 'alice'",
          message: 'alice may not deploy to prod',
        },
      ],
    });
    await t.binding('b', {
      policyName: 'p',
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } },
    });
    expect((await refusal(t.validate(create(deployment('x', 1))))).message).toContain(
      'alice may not deploy to prod',
    );
    await t.namespace('team-a', { env: 'dev' });
    await expect(t.validate(create(deployment('x', 1)))).resolves.toEqual([]);
  });

  it('follows failurePolicy for evaluation errors, and answers authorizer checks', async () => {
    const t = await setUp(false);
    await t.policy('p', {
      matchConstraints: deployments,
      validations: [{ expression: 'object.spec.missing > 1' }],
    });
    await t.binding('b', { policyName: 'p', validationActions: ['Deny'] });
    expect((await refusal(t.validate(create(deployment('x', 1))))).message).toContain(
      "denied request: expression 'object.spec.missing > 1' resulted in error: no such key: missing",
    );
    await t.policy(
      'p',
      {
        failurePolicy: 'Ignore',
        matchConstraints: deployments,
        validations: [{ expression: 'object.spec.missing > 1' }],
      },
      2,
    );
    await expect(t.validate(create(deployment('x', 1)))).resolves.toEqual([]);
    await t.policy(
      'p',
      {
        matchConstraints: deployments,
        validations: [
          {
            expression:
              "authorizer.group('apps').resource('deployments').namespace('team-a').check('delete').allowed()",
            message: 'only those who may delete may create',
          },
        ],
      },
      3,
    );
    expect((await refusal(t.validate(create(deployment('x', 1))))).message).toContain(
      'only those who may delete may create',
    );
    await t.policy(
      'p',
      {
        matchConstraints: deployments,
        validations: [
          {
            expression: "authorizer.requestResource.check('update').allowed()",
            message: 'may not update it',
          },
        ],
      },
      4,
    );
    expect((await refusal(t.validate(create(deployment('x', 1))))).message).toContain('may not update it');
  });

  it('refuses under failurePolicy Fail when the paramKind names no served resource', async () => {
    const t = await setUp();
    await t.policy('p', {
      matchConstraints: deployments,
      paramKind: { apiVersion: 'v1', kind: 'Nope' },
      validations: [{ expression: 'true' }],
    });
    await t.binding('b', {
      policyName: 'p',
      validationActions: ['Deny'],
      paramRef: { name: 'x', parameterNotFoundAction: 'Allow' },
    });
    expect((await refusal(t.validate(create(deployment('x', 1))))).message).toBe(
      `deployments.apps "x" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Nope'`,
    );
    await t.policy(
      'p',
      {
        failurePolicy: 'Ignore',
        matchConstraints: deployments,
        paramKind: { apiVersion: 'v1', kind: 'Nope' },
        validations: [{ expression: 'true' }],
      },
      2,
    );
    await expect(t.validate(create(deployment('x', 1)))).resolves.toEqual([]);
  });

  it('skips bindings whose policy does not exist, and has nothing to do without bindings', async () => {
    const t = await setUp();
    const attributes = create(deployment('x', 1));
    await t.binding('orphan', { policyName: 'missing', validationActions: ['Deny'] });
    await expect(t.validate(attributes)).resolves.toEqual([]);
  });
});
