import { describe, expect, it } from 'vitest';
import {
  type AttributesUser,
  forbiddenMessage,
  forbiddenStatus,
  nonResourceAttributes,
  requestAttributes,
} from '../../../src/apiserver/auth/rbac/index.js';
import { parseRequestInfo } from '../../../src/apiserver/request-info.js';

const bob: AttributesUser = { name: 'bob', groups: ['system:authenticated'] };

function attributesOf(method: string, path: string, query = '') {
  return requestAttributes(parseRequestInfo(method, path, new URLSearchParams(query)), bob);
}

describe('forbidden messages', () => {
  const cases: [string, string, string, string][] = [
    [
      'namespaced list',
      'GET',
      '/api/v1/namespaces/default/pods',
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
    ],
    [
      'cluster-scoped list',
      'GET',
      '/api/v1/nodes',
      'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope',
    ],
    [
      'list across namespaces',
      'GET',
      '/apis/apps/v1/deployments',
      'deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" at the cluster scope',
    ],
    [
      'named object',
      'DELETE',
      '/apis/apps/v1/namespaces/prod/deployments/web',
      'deployments.apps "web" is forbidden: User "bob" cannot delete resource "deployments" in API group "apps" in the namespace "prod"',
    ],
    [
      'subresource',
      'GET',
      '/api/v1/namespaces/default/pods/web/log',
      'pods "web" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "default"',
    ],
    [
      'namespace itself',
      'GET',
      '/api/v1/namespaces/kube-system',
      'namespaces "kube-system" is forbidden: User "bob" cannot get resource "namespaces" in API group "" in the namespace "kube-system"',
    ],
    ['non-resource path', 'GET', '/metrics', 'forbidden: User "bob" cannot get path "/metrics"'],
    ['non-resource post', 'POST', '/logs', 'forbidden: User "bob" cannot post path "/logs"'],
  ];
  it.each(cases)('%s', (_name, method, path, message) => {
    expect(forbiddenStatus(attributesOf(method, path), '').message).toBe(message);
  });

  it('watch through the query', () => {
    expect(forbiddenMessage(attributesOf('GET', '/api/v1/namespaces/a/configmaps', 'watch=true'))).toBe(
      'User "bob" cannot watch resource "configmaps" in API group "" in the namespace "a"',
    );
  });

  it('appends the reason after a colon', () => {
    const status = forbiddenStatus(
      attributesOf('GET', '/api/v1/namespaces/default/pods'),
      'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
    expect(status.message).toBe(
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default": ' +
        'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it('gives Status details of the resource, not the subresource', () => {
    expect(
      forbiddenStatus(attributesOf('GET', '/apis/apps/v1/namespaces/p/deployments/web/scale'), '').details,
    ).toEqual({
      name: 'web',
      group: 'apps',
      kind: 'deployments',
    });
    expect(forbiddenStatus(nonResourceAttributes(bob, 'get', '/x'), '').details).toEqual({});
  });

  it('quotes like Go and escapes HTML in the message but not in the reason', () => {
    const odd: AttributesUser = { name: 'a"<b>&', groups: [] };
    const status = forbiddenStatus(nonResourceAttributes(odd, 'get', '/p\n'), '<why>');
    expect(status.message).toBe('forbidden: User "a\\"&lt;b&gt;&amp;" cannot get path "/p\\n": <why>');
  });
});
