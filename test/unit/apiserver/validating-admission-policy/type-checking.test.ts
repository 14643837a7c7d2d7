// Type checking of policy expressions against the built-in kinds they match (upstream's
// typechecking.go): warnings per kind in cel-go's issue format, wildcards skipped, params typed.
import { describe, expect, it } from 'vitest';
import type { ValidatingAdmissionPolicy } from '../../../../src/api/types/admissionregistration-v1.generated.js';
import { builtinKindSchema } from '../../../../src/apiserver/admission/validating-admission-policy/openapi-schema.js';
import {
  type TypeCheckSources,
  typeCheckPolicy,
} from '../../../../src/apiserver/admission/validating-admission-policy/type-checking.js';

const KINDS: Record<string, string> = { 'apps/v1/deployments': 'Deployment', '/v1/configmaps': 'ConfigMap' };
const sources: TypeCheckSources = {
  kindsFor: (group, version, resource) => {
    const kind = KINDS[`${group}/${version}/${resource}`];
    return kind === undefined ? [] : [kind];
  },
  schemaFor: (gvk) => builtinKindSchema(gvk.group, gvk.version, gvk.kind),
};

function policy(
  resources: { apiGroups: string[]; resources: string[] }[],
  validations: object[],
  paramKind?: object,
) {
  return {
    metadata: { name: 'p' },
    spec: {
      ...(paramKind ? { paramKind } : {}),
      matchConstraints: {
        resourceRules: resources.map((rule) => ({ ...rule, apiVersions: ['v1'], operations: ['CREATE'] })),
      },
      validations,
    },
  } as ValidatingAdmissionPolicy;
}

describe('typeCheckPolicy', () => {
  it('warns about an undefined field for each matched kind', () => {
    const warnings = typeCheckPolicy(
      policy(
        [
          { apiGroups: ['apps'], resources: ['deployments'] },
          { apiGroups: [''], resources: ['configmaps'] },
        ],
        [{ expression: 'object.spec.replicas > 1' }],
      ),
      sources,
    );
    expect(warnings).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning:
          "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.replicas > 1\n | ......^\n",
      },
    ]);
  });

  it('checks messageExpressions and types params from the paramKind', () => {
    const warnings = typeCheckPolicy(
      policy(
        [{ apiGroups: ['apps'], resources: ['deployments'] }],
        [
          {
            expression: "object.spec.replicas <= int(params.data.max) && 'a' in object.metadata.labels",
            messageExpression: "'max ' + params.dat.max",
          },
        ],
        { apiVersion: 'v1', kind: 'ConfigMap' },
      ),
      sources,
    );
    expect(warnings).toEqual([
      {
        fieldRef: 'spec.validations[0].messageExpression',
        warning:
          "apps/v1, Kind=Deployment: ERROR: <input>:1:16: undefined field 'dat'\n | 'max ' + params.dat.max\n | ...............^\n",
      },
    ]);
  });

  it('reports type confusion in expression and messageExpression (the e2e spec "should type check validation expressions")', () => {
    const warnings = typeCheckPolicy(
      policy(
        [{ apiGroups: ['apps'], resources: ['deployments'] }],
        [
          {
            expression: "object.spec.replicas > '1'",
            messageExpression: "'wants replicas > 1, got ' + object.spec.replicas",
          },
        ],
      ),
      sources,
    );
    expect(warnings.map((w) => w.fieldRef)).toEqual([
      'spec.validations[0].expression',
      'spec.validations[0].messageExpression',
    ]);
    expect(warnings[0]!.warning).toContain("found no matching overload for '_>_' applied to '(int, string)'");
    expect(warnings[1]!.warning).toContain("found no matching overload for '_+_' applied to '(string, int)'");
  });

  it('has no types to check for wildcard rules', () => {
    expect(
      typeCheckPolicy(
        policy([{ apiGroups: ['*'], resources: ['deployments'] }], [{ expression: 'object.nope' }]),
        sources,
      ),
    ).toEqual([]);
  });
});
