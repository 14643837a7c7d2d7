// ValidatingAdmissionPolicy with real kubectl on `tkube up --nodes 0`: write-time refusals,
// Deny with message and reason, Warn as kubectl's `Warning:`, params from ConfigMaps by name and
// by selector, matchConditions, namespaceSelector, variables and messageExpression.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('vap-policies');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function fails(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')} succeeded: ${result.stdout}`).not.toBe(0);
  return result.stderr;
}

const apply = (yaml: string) => ok(['apply', '-f', '-'], yaml);

function deployment(name: string, namespace: string, replicas: number, labels = 'app: web'): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${namespace}, labels: {${labels}}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`;
}

const deploymentRules = `
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}`;

describe('ValidatingAdmissionPolicy', () => {
  it('refuses policies whose expressions do not compile, and Deny+Warn bindings', async () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:${deploymentRules}
  validations:
  - expression: "self.spec.replicas < 5"
`;
    expect(await fails(['create', '-f', '-'], policy)).toContain(
      `The ValidatingAdmissionPolicy "broken" is invalid: spec.validations[0].expression: Invalid value: "self.spec.replicas < 5": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')`,
    );
    const binding = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: loud}
spec: {policyName: any, validationActions: [Deny, Warn]}
`;
    expect(await fails(['create', '-f', '-'], binding)).toContain(
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn',
    );
  });

  it('denies with the message and reason, and warns through kubectl', async () => {
    await ok(['create', 'namespace', 'deny-ns']);
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  failurePolicy: Fail
  matchConstraints:${deploymentRules}
  validations:
  - expression: "object.spec.replicas <= 3"
    message: "at most 3 replicas"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-deny}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: deny-ns}}
`);
    const stderr = await fails(['apply', '-f', '-'], deployment('big', 'deny-ns', 5));
    expect(stderr).toContain(
      `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: at most 3 replicas`,
    );
    expect(await ok(['apply', '-f', '-'], deployment('small', 'deny-ns', 2))).toContain('created');
    // The binding's namespaceSelector keeps other namespaces out; a Warn binding covers them.
    await ok(['create', 'namespace', 'warn-ns']);
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-warn}
spec:
  policyName: replica-limit
  validationActions: [Warn]
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: warn-ns}}
`);
    const result = await cluster.kubectl(['apply', '-f', '-'], { input: deployment('big', 'warn-ns', 5) });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': at most 3 replicas`,
    );
  });

  it('reads params from ConfigMaps by name and by selector, with variables, messageExpression and matchConditions', async () => {
    await ok(['create', 'namespace', 'params-ns']);
    await ok(['create', 'configmap', 'limits', '-n', 'params-ns', '--from-literal=max=2']);
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: param-limit}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:${deploymentRules}
  matchConditions:
  - name: not-exempt
    expression: "!('exempt' in object.metadata.labels)"
  variables:
  - name: max
    expression: "int(params.data.max)"
  validations:
  - expression: "object.spec.replicas <= variables.max"
    messageExpression: "'replicas ' + string(object.spec.replicas) + ' exceed ' + params.metadata.name + ' max ' + string(variables.max)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: param-limit-by-name}
spec:
  policyName: param-limit
  validationActions: [Deny]
  paramRef: {name: limits, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: params-ns}}
`);
    expect(await fails(['apply', '-f', '-'], deployment('three', 'params-ns', 3))).toContain(
      `ValidatingAdmissionPolicy 'param-limit' with binding 'param-limit-by-name' denied request: replicas 3 exceed limits max 2`,
    );
    expect(
      await ok(['apply', '-f', '-'], deployment('exempt', 'params-ns', 3, 'app: web, exempt: "yes"')),
    ).toContain('created');
    await ok(['create', 'configmap', 'tight', '-n', 'params-ns', '--from-literal=max=1']);
    await ok(['label', 'configmap', 'tight', '-n', 'params-ns', 'limit=replicas']);
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: param-limit-by-name}
spec:
  policyName: param-limit
  validationActions: [Deny]
  paramRef: {selector: {matchLabels: {limit: replicas}}, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: params-ns}}
`);
    expect(await fails(['apply', '-f', '-'], deployment('two', 'params-ns', 2))).toContain(
      'denied request: replicas 2 exceed tight max 1',
    );
    await ok(['delete', 'configmap', 'tight', '-n', 'params-ns']);
    expect(await fails(['apply', '-f', '-'], deployment('two', 'params-ns', 2))).toContain(
      "binding 'param-limit-by-name' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it('applies to ConfigMaps on DELETE through oldObject', async () => {
    await ok(['create', 'namespace', 'keep-ns']);
    await ok(['create', 'configmap', 'precious', '-n', 'keep-ns', '--from-literal=a=b']);
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: keep-precious}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [configmaps]}
  validations:
  - expression: "oldObject.metadata.name != 'precious'"
    messageExpression: "'cannot delete ' + oldObject.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: keep-precious}
spec:
  policyName: keep-precious
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: keep-ns}}
`);
    expect(await fails(['delete', 'configmap', 'precious', '-n', 'keep-ns'])).toContain(
      // Reason Invalid (the default): kubectl prints the Status cause as it does for field errors.
      `The configmaps "precious" is invalid: : ValidatingAdmissionPolicy 'keep-precious' with binding 'keep-precious' denied request: cannot delete precious`,
    );
  });

  it('writes observedGeneration and type-checking warnings to the policy status', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typo}
spec:
  matchConstraints:${deploymentRules}
  validations:
  - expression: "object.spec.replicaz > 1"
`);
    let status: { observedGeneration?: number; typeChecking?: { expressionWarnings?: unknown[] } } = {};
    for (let attempt = 0; attempt < 50 && status.observedGeneration !== 1; attempt++) {
      status = JSON.parse(
        (await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.status}'])) || '{}',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toEqual({
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          {
            fieldRef: 'spec.validations[0].expression',
            warning:
              "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n | object.spec.replicaz > 1\n | ...........^\n",
          },
        ],
      },
    });
    expect(
      await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.metadata.generation}']),
    ).toBe('1');
  });

  it('type-checks again after a spec change, keeps status across spec writes, and deletes by label', async () => {
    const statusOf = async (generation: number) => {
      let status: {
        observedGeneration?: number;
        typeChecking?: { expressionWarnings?: { warning: string }[] };
      } = {};
      for (let attempt = 0; attempt < 50 && status.observedGeneration !== generation; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = JSON.parse(
          (await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.status}'])) || '{}',
        );
      }
      return status;
    };
    await ok(['label', 'validatingadmissionpolicy', 'typo', 'suite=vap']);
    await ok([
      'patch',
      'validatingadmissionpolicy',
      'typo',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/validations/0/expression","value":"object.spec.replicas > 1"}]',
    ]);
    expect(await statusOf(2)).toEqual({ observedGeneration: 2, typeChecking: {} });
    // A spec write with another status in its body does not set the status.
    const policy = JSON.parse(await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'json']));
    policy.status = { observedGeneration: 99 };
    policy.metadata.annotations = { note: 'x' };
    await ok(['replace', '-f', '-'], JSON.stringify(policy));
    const generation = Number(
      await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.metadata.generation}']),
    );
    expect((await statusOf(generation)).observedGeneration).toBe(generation);
    expect(await ok(['delete', 'validatingadmissionpolicies', '-l', 'suite=vap'])).toContain('deleted');
    expect(await ok(['get', 'validatingadmissionpolicies', '-l', 'suite=vap', '-o', 'name'])).toBe('');
  });
  it('denies custom resources and type-checks against the CRD schema', async () => {
    await apply(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.vap.example.com}
spec:
  group: vap.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`);
    await ok(['wait', '--for=condition=Established', 'crd/widgets.vap.example.com', '--timeout=30s']);
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: widget-size}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [vap.example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}
  validations:
  - expression: "object.spec.size <= 10"
    message: widgets are at most 10
  - expression: "object.spec.sise >= 0"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: widget-size}
spec: {policyName: widget-size, validationActions: [Deny]}
`);
    const widget = (name: string, size: number) => `apiVersion: vap.example.com/v1
kind: Widget
metadata: {name: ${name}, namespace: default}
spec: {size: ${size}}
`;
    let refusal = '';
    for (let attempt = 0; attempt < 50 && refusal === ''; attempt++) {
      const result = await cluster.kubectl(['create', '-f', '-'], { input: widget('big', 11) });
      if (result.exitCode !== 0) refusal = result.stderr;
      else await ok(['delete', 'widget', 'big']);
    }
    expect(refusal).toContain(
      // kubectl create prints a 422 Status by its details: resource, name, then each cause's field
      // (empty here) and message, as the Kubernetes docs show for a denied Deployment.
      `The widgets "big" is invalid: : ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size' denied request: widgets are at most 10`,
    );
    let warnings: unknown;
    for (let attempt = 0; attempt < 50 && warnings === undefined; attempt++) {
      const status = JSON.parse(
        (await ok(['get', 'validatingadmissionpolicy', 'widget-size', '-o', 'jsonpath={.status}'])) || '{}',
      );
      warnings = status.typeChecking?.expressionWarnings;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(warnings).toEqual([
      {
        fieldRef: 'spec.validations[1].expression',
        warning: expect.stringContaining(
          "vap.example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sise'",
        ),
      },
    ]);
  });
});
