import { describe, expect, it } from 'vitest';
import {
  CLUSTER_ROLES,
  DEPLOYMENTS,
  EVENTS_V1,
  findBuiltinResource,
  PODS,
} from '../../../src/client/resources.js';
import {
  deleteBody,
  escapePathSegment,
  escapeQuery,
  listQuery,
  patchQuery,
  queryString,
  resourcePath,
  watchQuery,
  writeQuery,
} from '../../../src/client/rest/request-url.js';
import { userAgent } from '../../../src/client/rest/rest-client.js';

describe('resourcePath', () => {
  it('spells core, group, namespaced, cluster-wide and subresource paths', () => {
    expect(resourcePath(PODS, 'default')).toBe('/api/v1/namespaces/default/pods');
    expect(resourcePath(PODS, '')).toBe('/api/v1/pods');
    expect(resourcePath(PODS, 'ns', 'web-0', 'status')).toBe('/api/v1/namespaces/ns/pods/web-0/status');
    expect(resourcePath(DEPLOYMENTS, 'ns', 'web', 'scale')).toBe(
      '/apis/apps/v1/namespaces/ns/deployments/web/scale',
    );
    expect(resourcePath(EVENTS_V1, 'ns')).toBe('/apis/events.k8s.io/v1/namespaces/ns/events');
    // A cluster-scoped resource ignores any namespace given.
    expect(resourcePath(CLUSTER_ROLES, 'ns', 'system:controller:deployment-controller')).toBe(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:deployment-controller',
    );
  });

  it('escapes path segments as Go does', () => {
    expect(escapePathSegment('a b/c?d')).toBe('a%20b%2Fc%3Fd');
    expect(escapePathSegment("x:y@z=1,$&+;!'()*~")).toBe('x:y@z=1,$&+;%21%27%28%29%2A~');
  });
});

describe('query strings', () => {
  it('sorts keys, drops unset values and escapes as url.Values.Encode', () => {
    expect(
      queryString({ watch: true, labelSelector: 'a=b,c!=d', fieldSelector: undefined, limit: 500 }),
    ).toBe('?labelSelector=a%3Db%2Cc%21%3Dd&limit=500&watch=true');
    expect(queryString({})).toBe('');
    expect(escapeQuery('env in (prod, qa)')).toBe('env+in+%28prod%2C+qa%29');
    expect(escapeQuery("-_.~*'")).toBe('-_.~%2A%27');
  });

  it('encodes list and watch options as client-go does', () => {
    expect(queryString(listQuery({ limit: 0, continue: '', resourceVersion: '0' }))).toBe(
      '?resourceVersion=0',
    );
    expect(
      queryString(
        listQuery({ limit: 10, continue: 'abc', resourceVersion: '5', resourceVersionMatch: 'NotOlderThan' }),
      ),
    ).toBe('?continue=abc&limit=10&resourceVersion=5&resourceVersionMatch=NotOlderThan');
    expect(queryString(watchQuery({}))).toBe('?watch=true');
    expect(
      queryString(
        watchQuery({
          allowWatchBookmarks: true,
          resourceVersion: '7',
          timeoutSeconds: 0,
          fieldSelector: 'spec.nodeName=n1',
        }),
      ),
    ).toBe(
      '?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=7&timeoutSeconds=0&watch=true',
    );
  });

  it('encodes write and patch options', () => {
    expect(
      queryString(writeQuery({ dryRun: true, fieldManager: 'kubectl', fieldValidation: 'Strict' })),
    ).toBe('?dryRun=All&fieldManager=kubectl&fieldValidation=Strict');
    expect(queryString(writeQuery({ dryRun: false }))).toBe('');
    expect(queryString(patchQuery({ force: true, fieldManager: 'm' }))).toBe('?fieldManager=m&force=true');
    expect(queryString(patchQuery({ force: false }))).toBe('?force=false');
  });

  it('sends DeleteOptions as the body, with kind and apiVersion', () => {
    expect(deleteBody()).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1' });
    expect(
      deleteBody({
        gracePeriodSeconds: 0,
        propagationPolicy: 'Orphan',
        preconditions: { uid: 'u', resourceVersion: '3' },
        dryRun: true,
      }),
    ).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u', resourceVersion: '3' },
      propagationPolicy: 'Orphan',
      dryRun: ['All'],
    });
  });
});

describe('resources and user agent', () => {
  it('finds built-ins by group, version and resource', () => {
    expect(findBuiltinResource('apps', 'v1', 'deployments')).toEqual(DEPLOYMENTS);
    expect(DEPLOYMENTS).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
    });
    expect(findBuiltinResource('apps', 'v1beta1', 'deployments')).toBeUndefined();
  });

  it("has client-go's shape", () => {
    expect(userAgent('deployment-controller')).toMatch(
      /^tkube-deployment-controller\/v1\.33\.0 \((linux|darwin|win32)\/(amd64|arm64|386|arm|\w+)\) tkube$/,
    );
  });
});
