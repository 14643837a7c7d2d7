// Matching of requests against matchConstraints / matchResources (upstream's
// policy/matching and webhook predicates): selectors, rules with `*` and subresources, scope,
// resource names, excluded rules and matchPolicy Equivalent.
import { describe, expect, it } from 'vitest';
import type {
  MatchResources,
  NamedRuleWithOperations,
} from '../../../../src/api/types/admissionregistration-v1.generated.js';
import {
  type MatchRequest,
  matchesResources,
} from '../../../../src/apiserver/admission/validating-admission-policy/matching.js';

const deploymentCreate: MatchRequest = {
  operation: 'CREATE',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  subresource: '',
  namespace: 'team-a',
  name: 'web',
  object: { metadata: { name: 'web', labels: { tier: 'front' } } },
  oldObject: null,
  namespaceLabels: { env: 'prod' },
};

const rule = (fields: Partial<NamedRuleWithOperations>): NamedRuleWithOperations => ({
  operations: ['CREATE'],
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  resources: ['deployments'],
  ...fields,
});

describe('matchesResources', () => {
  const cases: [string, MatchResources | undefined, Partial<MatchRequest>, boolean][] = [
    ['no matchResources matches everything', undefined, {}, true],
    ['an exact rule', { resourceRules: [rule({})] }, {}, true],
    ['another operation', { resourceRules: [rule({ operations: ['UPDATE'] })] }, {}, false],
    ['operation *', { resourceRules: [rule({ operations: ['*'] })] }, { operation: 'DELETE' }, true],
    ['another group', { resourceRules: [rule({ apiGroups: [''] })] }, {}, false],
    ['group and version *', { resourceRules: [rule({ apiGroups: ['*'], apiVersions: ['*'] })] }, {}, true],
    [
      'resource * skips subresources',
      { resourceRules: [rule({ resources: ['*'] })] },
      { subresource: 'status' },
      false,
    ],
    ['resource * matches the main resource', { resourceRules: [rule({ resources: ['*'] })] }, {}, true],
    [
      '*/* matches subresources',
      { resourceRules: [rule({ resources: ['*/*'] })] },
      { subresource: 'scale' },
      true,
    ],
    [
      'deployments/* matches a subresource',
      { resourceRules: [rule({ resources: ['deployments/*'] })] },
      { subresource: 'scale' },
      true,
    ],
    [
      'deployments/* skips the main resource',
      { resourceRules: [rule({ resources: ['deployments/*'] })] },
      {},
      false,
    ],
    [
      '*/scale matches any scale',
      { resourceRules: [rule({ resources: ['*/scale'] })] },
      { subresource: 'scale' },
      true,
    ],
    [
      'deployments/status is not scale',
      { resourceRules: [rule({ resources: ['deployments/status'] })] },
      { subresource: 'scale' },
      false,
    ],
    ['scope Cluster skips namespaced', { resourceRules: [rule({ scope: 'Cluster' })] }, {}, false],
    ['scope Namespaced', { resourceRules: [rule({ scope: 'Namespaced' })] }, {}, true],
    ['resourceNames naming the object', { resourceRules: [rule({ resourceNames: ['web'] })] }, {}, true],
    ['resourceNames naming another', { resourceRules: [rule({ resourceNames: ['api'] })] }, {}, false],
    [
      'excluded rules win',
      { resourceRules: [rule({})], excludeResourceRules: [rule({ resourceNames: ['web'] })] },
      {},
      false,
    ],
    [
      'namespaceSelector on the namespace labels',
      { resourceRules: [rule({})], namespaceSelector: { matchLabels: { env: 'prod' } } },
      {},
      true,
    ],
    [
      'namespaceSelector not matching',
      { resourceRules: [rule({})], namespaceSelector: { matchLabels: { env: 'dev' } } },
      {},
      false,
    ],
    [
      'namespaceSelector matches cluster-scoped requests',
      {
        resourceRules: [rule({ apiGroups: [''], resources: ['nodes'] })],
        namespaceSelector: { matchLabels: { env: 'dev' } },
      },
      { group: '', resource: 'nodes', namespace: '' },
      true,
    ],
    [
      'namespaceSelector on a namespace request reads its own labels',
      {
        resourceRules: [rule({ apiGroups: [''], resources: ['namespaces'] })],
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
      },
      {
        group: '',
        resource: 'namespaces',
        namespace: 'x',
        object: { metadata: { name: 'x', labels: { env: 'dev' } } },
      },
      true,
    ],
    [
      'objectSelector on the object labels',
      { resourceRules: [rule({})], objectSelector: { matchLabels: { tier: 'front' } } },
      {},
      true,
    ],
    [
      'objectSelector on the old object labels',
      {
        resourceRules: [rule({ operations: ['DELETE'] })],
        objectSelector: { matchLabels: { tier: 'back' } },
      },
      { operation: 'DELETE', object: null, oldObject: { metadata: { labels: { tier: 'back' } } } },
      true,
    ],
    [
      'objectSelector not matching',
      { resourceRules: [rule({})], objectSelector: { matchLabels: { tier: 'back' } } },
      {},
      false,
    ],
    [
      'Equivalent matches another served version',
      { resourceRules: [rule({ apiVersions: ['v1beta1'] })], matchPolicy: 'Equivalent' },
      { equivalentVersions: ['v1', 'v1beta1'] },
      true,
    ],
    [
      'Exact does not',
      { resourceRules: [rule({ apiVersions: ['v1beta1'] })], matchPolicy: 'Exact' },
      { equivalentVersions: ['v1', 'v1beta1'] },
      false,
    ],
    [
      'custom resources match by their group and plural',
      { resourceRules: [rule({ apiGroups: ['stable.example.com'], resources: ['crontabs'] })] },
      { group: 'stable.example.com', resource: 'crontabs' },
      true,
    ],
  ];
  it.each(cases)('%s', (_name, match, request, expected) => {
    expect(matchesResources(match, { ...deploymentCreate, ...request })).toBe(expected);
  });

  it('refuses a selector with an unknown operator as upstream does', () => {
    const match: MatchResources = {
      resourceRules: [rule({})],
      objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] },
    };
    expect(() => matchesResources(match, deploymentCreate)).toThrow(
      '"Near" is not a valid label selector operator',
    );
  });
});
