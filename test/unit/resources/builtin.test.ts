import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_GROUPS, BUILTIN_RESOURCES, CORE_GROUP } from '../../../src/api/resources/builtin.js';
import type { ResourceInfo, Verb } from '../../../src/api/resources/types.js';

const VERB_ORDER: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

function isSortedUnique(values: readonly string[]): boolean {
  return values.every((value, i) => i === 0 || values[i - 1]! < value);
}

function gvr(info: ResourceInfo): string {
  return `${info.group}/${info.version}/${info.resource}`;
}

function only(group: string, version: string, resource: string): ResourceInfo {
  const found = BUILTIN_RESOURCES.filter(
    (r) => r.group === group && r.version === version && r.resource === resource,
  );
  expect(found, `${group}/${version}/${resource}`).toHaveLength(1);
  return found[0]!;
}

describe('built-in resource table: structure', () => {
  it('has no duplicate resource within a group-version', () => {
    const keys = BUILTIN_RESOURCES.map(gvr);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('lists each group-version contiguously with its resources sorted by name, as discovery does', () => {
    const seen = new Set<string>();
    let previous: ResourceInfo | undefined;
    for (const info of BUILTIN_RESOURCES) {
      const gv = `${info.group}/${info.version}`;
      if (previous && `${previous.group}/${previous.version}` === gv) {
        expect(previous.resource < info.resource, gvr(info)).toBe(true);
      } else {
        expect(seen.has(gv), `${gv} appears twice`).toBe(false);
        seen.add(gv);
      }
      previous = info;
    }
  });

  it('gives every resource and subresource known verbs in alphabetical order', () => {
    for (const info of BUILTIN_RESOURCES) {
      expect(info.verbs.length, gvr(info)).toBeGreaterThan(0);
      expect(isSortedUnique(info.verbs), gvr(info)).toBe(true);
      expect(info.verbs.every((v) => VERB_ORDER.includes(v))).toBe(true);
      expect(isSortedUnique(info.subresources.map((s) => s.name)), gvr(info)).toBe(true);
      for (const sub of info.subresources) {
        const where = `${gvr(info)}/${sub.name}`;
        expect(sub.kind, where).toMatch(/^[A-Z][A-Za-z]+$/);
        expect(sub.verbs.length, where).toBeGreaterThan(0);
        expect(isSortedUnique(sub.verbs), where).toBe(true);
        expect(sub.verbs.every((v) => VERB_ORDER.includes(v))).toBe(true);
        expect(sub.group === undefined, where).toBe(sub.version === undefined);
      }
    }
  });

  it('uses the lower-cased kind as singular name', () => {
    for (const info of BUILTIN_RESOURCES) expect(info.singularName).toBe(info.kind.toLowerCase());
  });

  it('maps every short name to one resource name, and never to another resource’s plural or singular', () => {
    const owner = new Map<string, string>();
    for (const info of BUILTIN_RESOURCES) {
      for (const short of info.shortNames) {
        expect(owner.get(short) ?? info.resource, short).toBe(info.resource);
        owner.set(short, info.resource);
      }
    }
    for (const info of BUILTIN_RESOURCES) {
      expect(owner.get(info.resource) ?? info.resource).toBe(info.resource);
      expect(owner.get(info.singularName) ?? info.resource).toBe(info.resource);
    }
  });

  it('serves only GA versions', () => {
    for (const info of BUILTIN_RESOURCES) expect(info.version).toMatch(/^v\d+$/);
  });

  it('serves every listed version of every group, and lists every served group-version', () => {
    const served = new Set(BUILTIN_RESOURCES.map((r) => `${r.group}/${r.version}`));
    const listed = new Set<string>();
    for (const group of [CORE_GROUP, ...API_GROUPS]) {
      expect(group.versions.length, group.name).toBeGreaterThan(0);
      for (const version of group.versions) {
        expect(served.has(`${group.name}/${version}`), `${group.name}/${version}`).toBe(true);
        listed.add(`${group.name}/${version}`);
      }
    }
    expect(listed).toEqual(served);
  });

  it('orders /apis as the aggregator does: its own group, then priority, ties by APIService name', () => {
    const [first, ...rest] = API_GROUPS;
    expect(first?.name).toBe('apiregistration.k8s.io');
    expect(first?.priorities).toBeUndefined();
    const key = (g: (typeof rest)[number]) => {
      const preferred = g.versions[0]!;
      return { priority: g.priorities![preferred]!.group, name: `${preferred}.${g.name}` };
    };
    for (let i = 1; i < rest.length; i++) {
      const a = key(rest[i - 1]!);
      const b = key(rest[i]!);
      expect(a.priority > b.priority || (a.priority === b.priority && a.name < b.name), b.name).toBe(true);
    }
  });

  it('puts each group’s versions in descending version priority, all sharing the group priority', () => {
    for (const group of [CORE_GROUP, ...API_GROUPS.slice(1)]) {
      const priorities = group.versions.map((v) => group.priorities![v]!);
      expect(new Set(priorities.map((p) => p.group)).size).toBe(1);
      for (let i = 1; i < priorities.length; i++) {
        expect(priorities[i - 1]!.version).toBeGreaterThan(priorities[i]!.version);
      }
    }
  });

  it('hashes each storage version as kube-apiserver does', () => {
    // Storage versions that differ from the resource's own group-version in 1.33.
    const storedAs: Record<string, string> = {
      'events.k8s.io/v1/events': '/v1/Event',
      'autoscaling/v1/horizontalpodautoscalers': 'autoscaling/v2/HorizontalPodAutoscaler',
      'apiextensions.k8s.io/v1/customresourcedefinitions':
        'apiextensions.k8s.io/v1beta1/CustomResourceDefinition',
      'networking.k8s.io/v1/ipaddresses': 'networking.k8s.io/v1beta1/IPAddress',
      'networking.k8s.io/v1/servicecidrs': 'networking.k8s.io/v1beta1/ServiceCIDR',
    };
    for (const info of BUILTIN_RESOURCES) {
      if (info.storageVersionHash === undefined) continue;
      const gvk = storedAs[gvr(info)] ?? `${info.group}/${info.version}/${info.kind}`;
      const expected = createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');
      expect(info.storageVersionHash, gvr(info)).toBe(expected);
    }
  });

  it('has a storage version hash for every persisted resource and none for the rest', () => {
    const unhashed = BUILTIN_RESOURCES.filter((r) => r.storageVersionHash === undefined).map(gvr);
    expect(unhashed.sort()).toEqual([
      '/v1/bindings',
      '/v1/componentstatuses',
      'authentication.k8s.io/v1/selfsubjectreviews',
      'authentication.k8s.io/v1/tokenreviews',
      'authorization.k8s.io/v1/localsubjectaccessreviews',
      'authorization.k8s.io/v1/selfsubjectaccessreviews',
      'authorization.k8s.io/v1/selfsubjectrulesreviews',
      'authorization.k8s.io/v1/subjectaccessreviews',
    ]);
  });

  it('cannot be changed at run time', () => {
    const pods = only('', 'v1', 'pods');
    expect(Object.isFrozen(BUILTIN_RESOURCES)).toBe(true);
    expect(Object.isFrozen(pods)).toBe(true);
    expect(Object.isFrozen(pods.verbs)).toBe(true);
    expect(Object.isFrozen(pods.subresources[0])).toBe(true);
  });
});

describe('built-in resource table: facts of kube-apiserver 1.33', () => {
  it('serves exactly the GA group-versions, in /apis order', () => {
    expect(API_GROUPS.map((g) => `${g.name}:${g.versions.join(',')}`)).toEqual([
      'apiregistration.k8s.io:v1',
      'apps:v1',
      'events.k8s.io:v1',
      'authentication.k8s.io:v1',
      'authorization.k8s.io:v1',
      'autoscaling:v2,v1',
      'batch:v1',
      'certificates.k8s.io:v1',
      'networking.k8s.io:v1',
      'policy:v1',
      'rbac.authorization.k8s.io:v1',
      'storage.k8s.io:v1',
      'admissionregistration.k8s.io:v1',
      'apiextensions.k8s.io:v1',
      'scheduling.k8s.io:v1',
      'coordination.k8s.io:v1',
      'node.k8s.io:v1',
      'discovery.k8s.io:v1',
      'flowcontrol.apiserver.k8s.io:v1',
    ]);
  });

  it('serves the core resources', () => {
    const core = BUILTIN_RESOURCES.filter((r) => r.group === '').map((r) => r.resource);
    expect(core).toEqual([
      'bindings',
      'componentstatuses',
      'configmaps',
      'endpoints',
      'events',
      'limitranges',
      'namespaces',
      'nodes',
      'persistentvolumeclaims',
      'persistentvolumes',
      'pods',
      'podtemplates',
      'replicationcontrollers',
      'resourcequotas',
      'secrets',
      'serviceaccounts',
      'services',
    ]);
  });

  it('knows the short names kubectl users type', () => {
    const expected: Record<string, string> = {
      po: '/pods',
      svc: '/services',
      deploy: 'apps/deployments',
      cm: '/configmaps',
      ns: '/namespaces',
      ing: 'networking.k8s.io/ingresses',
      netpol: 'networking.k8s.io/networkpolicies',
      pdb: 'policy/poddisruptionbudgets',
      hpa: 'autoscaling/horizontalpodautoscalers',
      sc: 'storage.k8s.io/storageclasses',
      pv: '/persistentvolumes',
      pvc: '/persistentvolumeclaims',
      sa: '/serviceaccounts',
      csr: 'certificates.k8s.io/certificatesigningrequests',
      crd: 'apiextensions.k8s.io/customresourcedefinitions',
      crds: 'apiextensions.k8s.io/customresourcedefinitions',
      pc: 'scheduling.k8s.io/priorityclasses',
      ev: '/events',
      ip: 'networking.k8s.io/ipaddresses',
    };
    for (const [short, groupResource] of Object.entries(expected)) {
      const first = BUILTIN_RESOURCES.find((r) => r.shortNames.includes(short));
      expect(first && `${first.group}/${first.resource}`, short).toBe(groupResource);
    }
    expect(only('events.k8s.io', 'v1', 'events').shortNames).toEqual(['ev']);
  });

  it('puts the workloads and services in category "all"', () => {
    const all = BUILTIN_RESOURCES.filter((r) => r.categories.includes('all')).map(gvr);
    expect(all).toEqual([
      '/v1/pods',
      '/v1/replicationcontrollers',
      '/v1/services',
      'apps/v1/daemonsets',
      'apps/v1/deployments',
      'apps/v1/replicasets',
      'apps/v1/statefulsets',
      'autoscaling/v2/horizontalpodautoscalers',
      'autoscaling/v1/horizontalpodautoscalers',
      'batch/v1/cronjobs',
      'batch/v1/jobs',
    ]);
    const extensions = BUILTIN_RESOURCES.filter((r) => r.categories.includes('api-extensions')).map(gvr);
    expect(extensions).toEqual([
      'apiregistration.k8s.io/v1/apiservices',
      'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      'admissionregistration.k8s.io/v1/validatingadmissionpolicies',
      'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
      'admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      'apiextensions.k8s.io/v1/customresourcedefinitions',
    ]);
  });

  it('describes pods and their subresources', () => {
    const pods = only('', 'v1', 'pods');
    expect(pods.namespaced).toBe(true);
    expect(pods.verbs).toEqual(VERB_ORDER);
    expect(pods.subresources.map((s) => `${s.name}:${s.kind}:${s.verbs.join(',')}`)).toEqual([
      'attach:PodAttachOptions:create,get',
      'binding:Binding:create',
      'ephemeralcontainers:Pod:get,patch,update',
      'eviction:Eviction:create',
      'exec:PodExecOptions:create,get',
      'log:Pod:get',
      'portforward:PodPortForwardOptions:create,get',
      'proxy:PodProxyOptions:create,delete,get,patch,update',
      'resize:Pod:get,patch,update',
      'status:Pod:get,patch,update',
    ]);
    const eviction = pods.subresources.find((s) => s.name === 'eviction');
    expect(eviction).toMatchObject({ group: 'policy', version: 'v1' });
  });

  it('makes the review resources create-only and cluster-scoped, except the local one', () => {
    expect(only('authentication.k8s.io', 'v1', 'tokenreviews')).toMatchObject({
      kind: 'TokenReview',
      namespaced: false,
      verbs: ['create'],
      subresources: [],
    });
    expect(only('authorization.k8s.io', 'v1', 'localsubjectaccessreviews').namespaced).toBe(true);
    expect(only('authorization.k8s.io', 'v1', 'subjectaccessreviews').namespaced).toBe(false);
    expect(only('authentication.k8s.io', 'v1', 'selfsubjectreviews').verbs).toEqual(['create']);
  });

  it('routes scale, token and eviction to the kinds of other groups', () => {
    for (const resource of ['deployments', 'replicasets', 'statefulsets']) {
      expect(only('apps', 'v1', resource).subresources.find((s) => s.name === 'scale')).toEqual({
        name: 'scale',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
        group: 'autoscaling',
        version: 'v1',
      });
    }
    expect(only('', 'v1', 'replicationcontrollers').subresources.map((s) => s.name)).toEqual([
      'scale',
      'status',
    ]);
    expect(only('', 'v1', 'serviceaccounts').subresources).toEqual([
      {
        name: 'token',
        kind: 'TokenRequest',
        verbs: ['create'],
        group: 'authentication.k8s.io',
        version: 'v1',
      },
    ]);
  });

  it('knows which resources are namespaced', () => {
    const scope = (group: string, version: string, resource: string) =>
      only(group, version, resource).namespaced;
    expect(scope('', 'v1', 'namespaces')).toBe(false);
    expect(scope('', 'v1', 'nodes')).toBe(false);
    expect(scope('', 'v1', 'persistentvolumes')).toBe(false);
    expect(scope('', 'v1', 'persistentvolumeclaims')).toBe(true);
    expect(scope('', 'v1', 'bindings')).toBe(true);
    expect(scope('', 'v1', 'componentstatuses')).toBe(false);
    expect(scope('rbac.authorization.k8s.io', 'v1', 'clusterroles')).toBe(false);
    expect(scope('rbac.authorization.k8s.io', 'v1', 'roles')).toBe(true);
    expect(scope('storage.k8s.io', 'v1', 'csistoragecapacities')).toBe(true);
    expect(scope('coordination.k8s.io', 'v1', 'leases')).toBe(true);
    expect(scope('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')).toBe(false);
  });

  it('gives namespaces finalize and no deletecollection, componentstatuses only get and list', () => {
    const namespaces = only('', 'v1', 'namespaces');
    expect(namespaces.verbs).not.toContain('deletecollection');
    expect(namespaces.subresources.map((s) => `${s.name}:${s.verbs.join(',')}`)).toEqual([
      'finalize:update',
      'status:get,patch,update',
    ]);
    expect(only('', 'v1', 'componentstatuses')).toMatchObject({ verbs: ['get', 'list'], shortNames: ['cs'] });
    expect(
      only('certificates.k8s.io', 'v1', 'certificatesigningrequests').subresources.map((s) => s.name),
    ).toEqual(['approval', 'status']);
  });

  it('matches known storage version hashes', () => {
    expect(only('', 'v1', 'configmaps').storageVersionHash).toBe('qFsyl6wFWjQ=');
    expect(only('', 'v1', 'pods').storageVersionHash).toBe('xPOwRZ+Yhw8=');
    expect(only('events.k8s.io', 'v1', 'events').storageVersionHash).toBe('r2yiGXH7wu8=');
    expect(only('autoscaling', 'v1', 'horizontalpodautoscalers').storageVersionHash).toBe('qwQve8ut294=');
  });
});
