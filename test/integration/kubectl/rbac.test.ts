// RBAC with real kubectl: can-i (with --list and --as), a service account limited by a Role,
// escalation prevention, ClusterRole aggregation, and the bootstrap policy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('rbac');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function settle(): Promise<void> {
  // The authorizer reads RBAC objects from a watch-fed cache: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const AS_READER = '--as=system:serviceaccount:team:reader';

describe('RBAC', () => {
  it('installs the bootstrap policy', async () => {
    const roles = await ok(['get', 'clusterroles', '-o', 'name']);
    for (const name of [
      'cluster-admin',
      'admin',
      'edit',
      'view',
      'system:basic-user',
      'system:discovery',
      'system:node',
    ]) {
      expect(roles.split('\n')).toContain(`clusterrole.rbac.authorization.k8s.io/${name}`);
    }
    const binding = JSON.parse(await ok(['get', 'clusterrolebinding', 'cluster-admin', '-o', 'json'])) as {
      subjects: { kind: string; name: string }[];
      roleRef: { name: string };
    };
    expect(binding.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' },
    ]);
    expect(binding.roleRef.name).toBe('cluster-admin');
  });

  it('limits a service account to what its Role grants, with Kubernetes Forbidden text', async () => {
    await ok(['create', 'namespace', 'team']);
    await ok(['create', 'serviceaccount', 'reader', '-n', 'team']);
    await ok(['create', 'role', 'pod-reader', '-n', 'team', '--verb=get,list,watch', '--resource=pods']);
    await ok([
      'create',
      'rolebinding',
      'reader',
      '-n',
      'team',
      '--role=pod-reader',
      '--serviceaccount=team:reader',
    ]);
    await settle();
    expect(await ok(['auth', 'can-i', 'list', 'pods', '-n', 'team', AS_READER])).toBe('yes');
    const secrets = await cluster.kubectl(['auth', 'can-i', 'list', 'secrets', '-n', 'team', AS_READER]);
    expect(secrets.stdout).toBe('no');
    expect(await ok(['auth', 'can-i', 'list', 'pods', '-n', 'default', AS_READER]).catch(() => 'no')).toBe(
      'no',
    );
    const denied = await cluster.kubectl(['get', 'secrets', '-n', 'team', AS_READER]);
    expect(denied.stderr).toBe(
      'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:team:reader" cannot list resource "secrets" in API group "" in the namespace "team"',
    );
    const named = await cluster.kubectl(['delete', 'pod', 'x', '-n', 'team', AS_READER]);
    expect(named.stderr).toBe(
      'Error from server (Forbidden): pods "x" is forbidden: User "system:serviceaccount:team:reader" cannot delete resource "pods" in API group "" in the namespace "team"',
    );
    expect((await cluster.kubectl(['get', 'pods', '-n', 'team', AS_READER])).stderr).toBe(
      'No resources found in team namespace.',
    );
    const list = await ok(['auth', 'can-i', '--list', '-n', 'team', AS_READER]);
    expect(list).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(list).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    const whoami = JSON.parse(await ok(['auth', 'whoami', '-o', 'json', AS_READER])) as {
      status: { userInfo: { username: string } };
    };
    expect(whoami.status.userInfo.username).toBe('system:serviceaccount:team:reader');
  });

  it('refuses escalation: granting what the writer does not hold', async () => {
    await ok(['create', 'serviceaccount', 'delegate', '-n', 'team']);
    await ok([
      'create',
      'role',
      'role-writer',
      '-n',
      'team',
      '--verb=create,get,list,update',
      '--resource=roles.rbac.authorization.k8s.io',
    ]);
    await ok([
      'create',
      'rolebinding',
      'delegate',
      '-n',
      'team',
      '--role=role-writer',
      '--serviceaccount=team:delegate',
    ]);
    await settle();
    const as = '--as=system:serviceaccount:team:delegate';
    const escalation = await cluster.kubectl([
      'create',
      'role',
      'grab',
      '-n',
      'team',
      '--verb=get',
      '--resource=secrets',
      as,
    ]);
    expect(escalation.exitCode).toBe(1);
    expect(escalation.stderr).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "grab" is forbidden: user "system:serviceaccount:team:delegate" (groups=["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
    );
    // What the writer holds may be granted.
    expect(
      await ok([
        'create',
        'role',
        'roles-reader',
        '-n',
        'team',
        '--verb=get',
        '--resource=roles.rbac.authorization.k8s.io',
        as,
      ]),
    ).toBe('role.rbac.authorization.k8s.io/roles-reader created');
    const impersonation = await cluster.kubectl(['get', 'pods', '-n', 'team', '--as=someone-else', as]);
    expect(impersonation.exitCode).toBe(1);
  });

  it('keeps aggregated ClusterRoles up to date with the roles they select', async () => {
    await ok(
      ['apply', '-f', '-'],
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: widget-viewer',
        '  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}',
        'rules:',
        '- apiGroups: [example.com]',
        '  resources: [widgets]',
        '  verbs: [get, list, watch]',
      ].join('\n'),
    );
    await settle();
    for (const role of ['view', 'edit', 'admin']) {
      const rules = JSON.parse(await ok(['get', 'clusterrole', role, '-o', 'jsonpath={.rules}'])) as {
        apiGroups?: string[];
        resources?: string[];
      }[];
      expect(
        rules.some((rule) => rule.apiGroups?.includes('example.com') && rule.resources?.includes('widgets')),
        role,
      ).toBe(true);
    }
    await ok(['delete', 'clusterrole', 'widget-viewer']);
    await settle();
    const view = await ok(['get', 'clusterrole', 'view', '-o', 'jsonpath={.rules}']);
    expect(view).not.toContain('widgets');
  });
});
