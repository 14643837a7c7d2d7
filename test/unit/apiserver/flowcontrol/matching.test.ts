// FlowSchema rule matching as upstream's matching.go: subjects, resource rules with cluster scope
// and namespaces, non-resource URLs with their `/*` prefixes.
import { describe, expect, it } from 'vitest';
import {
  MANDATORY_FLOW_SCHEMAS,
  SUGGESTED_FLOW_SCHEMAS,
} from '../../../../src/apiserver/flowcontrol/bootstrap-configuration.js';
import {
  matchesRules,
  type PolicyRulesWithSubjects,
} from '../../../../src/apiserver/flowcontrol/matching.js';
import { parseRequestInfo } from '../../../../src/apiserver/request-info.js';

const rulesOf = (name: string) =>
  (
    [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS].find((schema) => schema.metadata?.name === name)!
      .spec as {
      rules: PolicyRulesWithSubjects[];
    }
  ).rules;
const info = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());
const user = (name: string, ...groups: string[]) => ({ name, groups });

describe('FlowSchema matching', () => {
  it('matches the bootstrap schemas as upstream classifies their users', () => {
    const list = info('GET', '/api/v1/namespaces/ns/pods');
    expect(matchesRules(rulesOf('exempt'), user('admin', 'system:masters'), list)).toBe(true);
    expect(matchesRules(rulesOf('exempt'), user('dev', 'system:authenticated'), list)).toBe(false);
    const account = user('system:serviceaccount:ns:app', 'system:serviceaccounts', 'system:authenticated');
    expect(matchesRules(rulesOf('service-accounts'), account, list)).toBe(true);
    expect(matchesRules(rulesOf('kube-system-service-accounts'), account, list)).toBe(false);
    const kubeSystem = user('system:serviceaccount:kube-system:x', 'system:serviceaccounts');
    expect(matchesRules(rulesOf('kube-system-service-accounts'), kubeSystem, list)).toBe(true);
    expect(
      matchesRules(
        rulesOf('probes'),
        user('system:anonymous', 'system:unauthenticated'),
        info('GET', '/readyz'),
      ),
    ).toBe(true);
    expect(
      matchesRules(
        rulesOf('probes'),
        user('system:anonymous', 'system:unauthenticated'),
        info('GET', '/metrics'),
      ),
    ).toBe(false);
  });

  it('takes cluster-scoped requests only where clusterScope is set, and subresources by their full name', () => {
    const node = user('system:node:n1', 'system:nodes');
    expect(matchesRules(rulesOf('system-node-high'), node, info('PUT', '/api/v1/nodes/n1/status'))).toBe(
      true,
    );
    expect(matchesRules(rulesOf('system-node-high'), node, info('GET', '/api/v1/namespaces/a/pods'))).toBe(
      false,
    );
    const leases = info('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1');
    expect(matchesRules(rulesOf('system-node-high'), node, leases)).toBe(true);
    const clusterLeases = info('GET', '/apis/coordination.k8s.io/v1/leases');
    expect(
      matchesRules(rulesOf('system-leader-election'), user('system:kube-scheduler'), clusterLeases),
    ).toBe(false);
  });

  it('reads `/*` as a prefix of whole path segments', () => {
    const rules: PolicyRulesWithSubjects[] = [
      {
        subjects: [{ kind: 'User', user: { name: '*' } }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }],
      },
    ];
    expect(matchesRules(rules, user('a'), info('GET', '/apis'))).toBe(true);
    expect(matchesRules(rules, user('a'), info('GET', '/apis/apps/v1'))).toBe(true);
    expect(matchesRules(rules, user('a'), info('GET', '/apisx'))).toBe(false);
    expect(matchesRules(rules, user('a'), info('POST', '/apis'))).toBe(false);
  });
});
