import { describe, expect, it } from 'vitest';
import type { GroupInfo } from '../../../src/api/resources/types.js';
import { legacyGroupOrder } from '../../../src/apiserver/discovery/group-order.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from '../../../src/apiserver/discovery/legacy.js';
import { BUILTIN_TABLE, type ResourceTable } from '../../../src/apiserver/discovery/table.js';

describe('/api', () => {
  it('lists v1 and the server address for every client', () => {
    expect(JSON.stringify(apiVersions('10.0.0.1:6443'))).toBe(
      '{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]}',
    );
  });
});

describe('/apis', () => {
  const list = apiGroupList();

  it('lists the aggregator group first, then by priority, never the core group', () => {
    expect(list.groups.map((group) => group.name)).toEqual([
      'apiregistration.k8s.io',
      'apps',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'autoscaling',
      'batch',
      'certificates.k8s.io',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'storage.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'scheduling.k8s.io',
      'coordination.k8s.io',
      'node.k8s.io',
      'discovery.k8s.io',
      'flowcontrol.apiserver.k8s.io',
    ]);
  });

  it('writes the apps group like the aggregator does, without server addresses', () => {
    expect(
      JSON.stringify(list).startsWith('{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name"'),
    ).toBe(true);
    expect(JSON.stringify(list.groups[1])).toBe(
      '{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}',
    );
  });

  it('puts the preferred version first', () => {
    const autoscaling = list.groups.find((group) => group.name === 'autoscaling');
    expect(autoscaling?.versions).toEqual([
      { groupVersion: 'autoscaling/v2', version: 'v2' },
      { groupVersion: 'autoscaling/v1', version: 'v1' },
    ]);
    expect(autoscaling?.preferredVersion).toEqual({ groupVersion: 'autoscaling/v2', version: 'v2' });
  });
});

describe('/apis/<group>', () => {
  it('answers one group with its type meta', () => {
    expect(JSON.stringify(apiGroup('apps'))).toBe(
      '{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}',
    );
  });

  it('knows no core group and no unserved group', () => {
    expect(apiGroup('')).toBeUndefined();
    expect(apiGroup('resource.k8s.io')).toBeUndefined();
  });
});

describe('/api/v1', () => {
  const list = apiResourceList('', 'v1')!;
  const pods = list.resources.filter(
    (resource) => resource.name === 'pods' || resource.name.startsWith('pods/'),
  );

  it('has no apiVersion, as kube-apiserver strips it for the core group', () => {
    expect(
      JSON.stringify(list).startsWith('{"kind":"APIResourceList","groupVersion":"v1","resources":['),
    ).toBe(true);
  });

  it('describes pods with every field discovery shows', () => {
    expect(JSON.stringify(pods[0])).toBe(
      '{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"],"storageVersionHash":"xPOwRZ+Yhw8="}',
    );
  });

  it('lists the pod subresources after pods, each with its kind and verbs', () => {
    expect(pods.slice(1)).toEqual([
      {
        name: 'pods/attach',
        singularName: '',
        namespaced: true,
        kind: 'PodAttachOptions',
        verbs: ['create', 'get'],
      },
      { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
      {
        name: 'pods/ephemeralcontainers',
        singularName: '',
        namespaced: true,
        kind: 'Pod',
        verbs: ['get', 'patch', 'update'],
      },
      {
        name: 'pods/eviction',
        singularName: '',
        namespaced: true,
        group: 'policy',
        version: 'v1',
        kind: 'Eviction',
        verbs: ['create'],
      },
      {
        name: 'pods/exec',
        singularName: '',
        namespaced: true,
        kind: 'PodExecOptions',
        verbs: ['create', 'get'],
      },
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
      {
        name: 'pods/portforward',
        singularName: '',
        namespaced: true,
        kind: 'PodPortForwardOptions',
        verbs: ['create', 'get'],
      },
      {
        name: 'pods/proxy',
        singularName: '',
        namespaced: true,
        kind: 'PodProxyOptions',
        verbs: ['create', 'delete', 'get', 'patch', 'update'],
      },
      {
        name: 'pods/resize',
        singularName: '',
        namespaced: true,
        kind: 'Pod',
        verbs: ['get', 'patch', 'update'],
      },
      {
        name: 'pods/status',
        singularName: '',
        namespaced: true,
        kind: 'Pod',
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });

  it('sorts subresources right after their resource, by byte order', () => {
    const names = list.resources.map((resource) => resource.name);
    expect(names.indexOf('pods/status') + 1).toBe(names.indexOf('podtemplates'));
    expect(names).toEqual([...names].sort());
  });
});

describe('/apis/<group>/<version>', () => {
  it('names the group-version of a subresource kind that lives elsewhere, in field order', () => {
    const list = apiResourceList('apps', 'v1')!;
    expect(list.apiVersion).toBe('v1');
    expect(JSON.stringify(list.resources.find((resource) => resource.name === 'deployments/scale'))).toBe(
      '{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}',
    );
  });

  it('omits empty short names and categories', () => {
    const revisions = apiResourceList('apps', 'v1')!.resources[0]!;
    expect(Object.keys(revisions)).toEqual([
      'name',
      'singularName',
      'namespaced',
      'kind',
      'verbs',
      'storageVersionHash',
    ]);
  });

  it('serves nothing for an unknown group-version', () => {
    expect(apiResourceList('apps', 'v1beta1')).toBeUndefined();
  });
});

describe('group order with added groups', () => {
  const group = (name: string, priority: number): GroupInfo => ({
    name,
    versions: ['v1'],
    priorities: { v1: { group: priority, version: 15 } },
  });
  const widget = {
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    singularName: 'widget',
    kind: 'Widget',
    namespaced: true,
    verbs: ['get'],
    shortNames: [],
    categories: [],
    subresources: [],
  } as const;

  it('places a group by its APIService priority, ties broken by APIService name', () => {
    const table: ResourceTable = {
      groups: [...BUILTIN_TABLE.groups, group('example.com', 16700), group('aaa.io', 17750)],
      resources: [...BUILTIN_TABLE.resources, widget, { ...widget, group: 'aaa.io' }],
    };
    const names = legacyGroupOrder(table).map((entry) => entry.group.name);
    expect(names.slice(0, 4)).toEqual(['apiregistration.k8s.io', 'apps', 'aaa.io', 'events.k8s.io']);
    // v1.example.com sorts after v1.apiextensions.k8s.io among the 16700s.
    const first16700 = names.indexOf('admissionregistration.k8s.io');
    expect(names.slice(first16700, first16700 + 4)).toEqual([
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'example.com',
      'scheduling.k8s.io',
    ]);
  });

  it('leaves out groups that serve no resource', () => {
    const table: ResourceTable = {
      ...BUILTIN_TABLE,
      groups: [...BUILTIN_TABLE.groups, group('empty.io', 20000)],
    };
    expect(legacyGroupOrder(table).map((entry) => entry.group.name)).not.toContain('empty.io');
  });
});
