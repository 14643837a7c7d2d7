import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ResourceInfo } from '../../../src/api/resources/types.js';
import {
  aggregatedCoreDiscovery,
  aggregatedDiscoveryETag,
  aggregatedGroupsDiscovery,
} from '../../../src/apiserver/discovery/aggregated.js';
import { encodeJsonLikeGo } from '../../../src/apiserver/discovery/go-json.js';
import { apiGroupList } from '../../../src/apiserver/discovery/legacy.js';
import { BUILTIN_TABLE, type ResourceTable } from '../../../src/apiserver/discovery/table.js';

describe('aggregated /apis', () => {
  const list = aggregatedGroupsDiscovery();

  it('is an apidiscovery.k8s.io/v2 APIGroupDiscoveryList', () => {
    expect(
      JSON.stringify(list).startsWith(
        '{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"apiregistration.k8s.io","creationTimestamp":null},"versions":[{"version":"v1","resources":[',
      ),
    ).toBe(true);
  });

  it('orders groups as /apis does', () => {
    expect(list.items.map((item) => item.metadata.name)).toEqual(
      apiGroupList().groups.map((group) => group.name),
    );
  });

  it('describes deployments with the scale subresource answering autoscaling/v1 Scale', () => {
    const apps = list.items.find((item) => item.metadata.name === 'apps')!;
    expect(apps.versions.map((version) => [version.version, version.freshness])).toEqual([['v1', 'Current']]);
    const deployments = apps.versions[0]!.resources!.find((resource) => resource.resource === 'deployments');
    expect(JSON.stringify(deployments)).toBe(
      '{"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"],"subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},{"subresource":"status","responseKind":{"group":"","version":"","kind":"Deployment"},"verbs":["get","patch","update"]}]}',
    );
  });

  it('lists every version of a group, preferred first', () => {
    const autoscaling = list.items.find((item) => item.metadata.name === 'autoscaling')!;
    expect(autoscaling.versions.map((version) => version.version)).toEqual(['v2', 'v1']);
  });

  it('marks cluster-scoped resources and leaves out empty lists', () => {
    const rbac = list.items.find((item) => item.metadata.name === 'rbac.authorization.k8s.io')!;
    const clusterRoles = rbac.versions[0]!.resources!.find(
      (resource) => resource.resource === 'clusterroles',
    )!;
    expect(clusterRoles.scope).toBe('Cluster');
    expect(Object.keys(clusterRoles)).toEqual([
      'resource',
      'responseKind',
      'scope',
      'singularResource',
      'verbs',
    ]);
  });
});

describe('aggregated /api', () => {
  const list = aggregatedCoreDiscovery();

  it('holds the core group alone, without a name', () => {
    expect(list.items).toHaveLength(1);
    expect(JSON.stringify(list.items[0]!.metadata)).toBe('{"creationTimestamp":null}');
    expect(list.items[0]!.versions.map((version) => version.version)).toEqual(['v1']);
  });

  it('gives pods/eviction the policy/v1 Eviction kind and pods/log the Pod kind', () => {
    const pods = list.items[0]!.versions[0]!.resources!.find((resource) => resource.resource === 'pods')!;
    expect(pods.subresources?.find((sub) => sub.subresource === 'eviction')).toEqual({
      subresource: 'eviction',
      responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      verbs: ['create'],
    });
    expect(pods.subresources?.find((sub) => sub.subresource === 'log')?.responseKind).toEqual({
      group: '',
      version: '',
      kind: 'Pod',
    });
  });
});

describe('custom resource groups', () => {
  const widget: ResourceInfo = {
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    singularName: 'widget',
    kind: 'Widget',
    namespaced: true,
    verbs: ['get', 'list'],
    shortNames: [],
    categories: [],
    subresources: [{ name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'] }],
  };
  const table: ResourceTable = {
    groups: [
      ...BUILTIN_TABLE.groups,
      { name: 'example.com', versions: ['v1'], priorities: { v1: { group: 1000, version: 100 } } },
    ],
    resources: [...BUILTIN_TABLE.resources, widget],
    customResourceGroups: new Set(['example.com']),
  };

  it('spell out the group and version of their response kinds, as apiextensions-apiserver does', () => {
    const item = aggregatedGroupsDiscovery(table).items.at(-1)!;
    expect(item.metadata.name).toBe('example.com');
    const widgets = item.versions[0]!.resources![0]!;
    expect(widgets.responseKind).toEqual({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(widgets.subresources?.[0]?.responseKind).toEqual({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
    });
  });
});

describe('aggregatedDiscoveryETag', () => {
  it('hashes the list without its type meta, so every media type shares it', () => {
    const list = aggregatedGroupsDiscovery();
    const expected = createHash('sha512')
      .update(JSON.stringify({ metadata: {}, items: list.items }))
      .digest('hex')
      .toUpperCase();
    expect(aggregatedDiscoveryETag(list)).toBe(expected);
    expect(aggregatedDiscoveryETag(list)).toMatch(/^[0-9A-F]{128}$/);
  });

  it('is stable for a table and changes with it', () => {
    expect(aggregatedDiscoveryETag(aggregatedGroupsDiscovery())).toBe(
      aggregatedDiscoveryETag(aggregatedGroupsDiscovery()),
    );
    const smaller: ResourceTable = {
      groups: BUILTIN_TABLE.groups,
      resources: BUILTIN_TABLE.resources.filter((info) => info.resource !== 'leases'),
    };
    expect(aggregatedDiscoveryETag(aggregatedGroupsDiscovery(smaller))).not.toBe(
      aggregatedDiscoveryETag(aggregatedGroupsDiscovery()),
    );
    expect(aggregatedDiscoveryETag(aggregatedCoreDiscovery())).not.toBe(
      aggregatedDiscoveryETag(aggregatedGroupsDiscovery()),
    );
  });

  it('hashes the bytes Go writes, which escape <, > and &', () => {
    expect(encodeJsonLikeGo({ text: 'a<b>&c\u2028' })).toBe('{"text":"a\\u003cb\\u003e\\u0026c\\u2028"}');
  });
});
