import { describe, expect, it } from 'vitest';
import {
  findByKind,
  findGroup,
  findResource,
  findSubresource,
  isServed,
  listApiGroups,
  preferredVersion,
  resolveResource,
  resolveResourceCandidates,
  resourcesInCategory,
  resourcesOf,
  servedGroupVersions,
} from '../../../src/api/resources/lookup.js';
import type { ResourceInfo } from '../../../src/api/resources/types.js';

function gvr(info: ResourceInfo | undefined): string | undefined {
  return info && `${info.group}/${info.version}/${info.resource}`;
}

describe('resource look-ups', () => {
  it('finds a resource by group, version and plural name', () => {
    expect(findResource('apps', 'v1', 'deployments')?.kind).toBe('Deployment');
    expect(findResource('', 'v1', 'pods')?.kind).toBe('Pod');
    expect(findResource('apps', 'v1beta1', 'deployments')).toBeUndefined();
    expect(findResource('', 'v1', 'pod')).toBeUndefined();
  });

  it('finds subresources', () => {
    expect(findSubresource('', 'v1', 'pods', 'eviction')).toEqual({
      name: 'eviction',
      kind: 'Eviction',
      verbs: ['create'],
      group: 'policy',
      version: 'v1',
    });
    expect(findSubresource('', 'v1', 'pods', 'log')?.verbs).toEqual(['get']);
    expect(findSubresource('', 'v1', 'configmaps', 'status')).toBeUndefined();
    expect(findSubresource('', 'v1', 'nopes', 'status')).toBeUndefined();
  });

  it('lists the resources of a group-version', () => {
    expect(resourcesOf('batch', 'v1').map((r) => r.resource)).toEqual(['cronjobs', 'jobs']);
    expect(resourcesOf('batch', 'v1beta1')).toEqual([]);
    expect(isServed('autoscaling', 'v2')).toBe(true);
    expect(isServed('', 'v1')).toBe(true);
    expect(isServed('resource.k8s.io', 'v1beta1')).toBe(false);
    expect(isServed('storage.k8s.io', 'v1beta1')).toBe(false);
  });

  it('finds by kind, at the preferred version unless told otherwise', () => {
    expect(gvr(findByKind('autoscaling', 'HorizontalPodAutoscaler'))).toBe(
      'autoscaling/v2/horizontalpodautoscalers',
    );
    expect(gvr(findByKind('autoscaling', 'HorizontalPodAutoscaler', 'v1'))).toBe(
      'autoscaling/v1/horizontalpodautoscalers',
    );
    expect(gvr(findByKind('', 'Event'))).toBe('/v1/events');
    expect(gvr(findByKind('events.k8s.io', 'Event'))).toBe('events.k8s.io/v1/events');
    expect(findByKind('apps', 'Pod')).toBeUndefined();
  });

  it('resolves names as kubectl does, ignoring case', () => {
    const cases: Record<string, string> = {
      po: '/v1/pods',
      PO: '/v1/pods',
      pod: '/v1/pods',
      Pods: '/v1/pods',
      Deployment: 'apps/v1/deployments',
      deploy: 'apps/v1/deployments',
      'deployments.apps': 'apps/v1/deployments',
      'deployments.v1.apps': 'apps/v1/deployments',
      hpa: 'autoscaling/v2/horizontalpodautoscalers',
      'hpa.v1.autoscaling': 'autoscaling/v1/horizontalpodautoscalers',
      events: '/v1/events',
      ev: '/v1/events',
      'events.events.k8s.io': 'events.k8s.io/v1/events',
      'ev.events.k8s.io': 'events.k8s.io/v1/events',
      crds: 'apiextensions.k8s.io/v1/customresourcedefinitions',
      'ingresses.networking.k8s.io': 'networking.k8s.io/v1/ingresses',
      endpoints: '/v1/endpoints',
      endpointslice: 'discovery.k8s.io/v1/endpointslices',
    };
    for (const [arg, expected] of Object.entries(cases))
      expect(gvr(resolveResource(arg)), arg).toBe(expected);
    expect(resolveResource('pods.apps')).toBeUndefined();
    expect(resolveResource('widgets')).toBeUndefined();
    expect(resolveResource('deployments.v1beta1.apps')).toBeUndefined();
  });

  it('returns every candidate in priority order', () => {
    expect(resolveResourceCandidates('ev').map(gvr)).toEqual(['/v1/events', 'events.k8s.io/v1/events']);
    expect(resolveResourceCandidates('horizontalpodautoscalers').map(gvr)).toEqual([
      'autoscaling/v2/horizontalpodautoscalers',
      'autoscaling/v1/horizontalpodautoscalers',
    ]);
  });

  it('expands a category to one resource per group', () => {
    expect(resourcesInCategory('all').map((r) => `${r.resource}.${r.group}`)).toEqual([
      'pods.',
      'replicationcontrollers.',
      'services.',
      'daemonsets.apps',
      'deployments.apps',
      'replicasets.apps',
      'statefulsets.apps',
      'horizontalpodautoscalers.autoscaling',
      'cronjobs.batch',
      'jobs.batch',
    ]);
    expect(resourcesInCategory('all').find((r) => r.group === 'autoscaling')?.version).toBe('v2');
    expect(resourcesInCategory('nothing')).toEqual([]);
  });
});

describe('group look-ups', () => {
  it('lists /apis groups in discovery order', () => {
    const names = listApiGroups().map((g) => g.name);
    expect(names.slice(0, 3)).toEqual(['apiregistration.k8s.io', 'apps', 'events.k8s.io']);
    expect(names.indexOf('admissionregistration.k8s.io')).toBe(names.indexOf('apiextensions.k8s.io') - 1);
    expect(names).not.toContain('');
  });

  it('knows the preferred version of each group', () => {
    expect(preferredVersion('')).toBe('v1');
    expect(preferredVersion('autoscaling')).toBe('v2');
    expect(preferredVersion('flowcontrol.apiserver.k8s.io')).toBe('v1');
    expect(preferredVersion('resource.k8s.io')).toBeUndefined();
    expect(findGroup('autoscaling')?.priorities).toEqual({
      v2: { group: 17500, version: 30 },
      v1: { group: 17500, version: 15 },
    });
  });

  it('spells served group-versions as apiVersion does', () => {
    const versions = servedGroupVersions();
    expect(versions).toHaveLength(21);
    expect(versions[0]).toBe('v1');
    expect(versions[1]).toBe('apiregistration.k8s.io/v1');
    expect(versions.indexOf('autoscaling/v2')).toBe(versions.indexOf('autoscaling/v1') - 1);
  });
});
