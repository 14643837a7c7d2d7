import { describe, expect, it } from 'vitest';
import { BUILTIN_RESOURCES } from '../../../src/api/resources/builtin.js';
import {
  allDefinitions,
  definitionNameForKind,
  definitionsSource,
  fieldSchema,
  getDefinition,
  refDefinitionName,
  resolveSchema,
} from '../../../src/apiserver/openapi/definitions.js';
import type { SchemaObject } from '../../../src/apiserver/openapi/schema.js';

const POD = 'io.k8s.api.core.v1.Pod';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Every kind a default kube-apiserver 1.33 serves, by group/version; lists are checked separately. */
const DEFAULT_KINDS: Record<string, string[]> = {
  v1: [
    'Binding',
    'ComponentStatus',
    'ConfigMap',
    'Endpoints',
    'Event',
    'LimitRange',
    'Namespace',
    'Node',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'Pod',
    'PodTemplate',
    'ReplicationController',
    'ResourceQuota',
    'Secret',
    'Service',
    'ServiceAccount',
  ],
  'apps/v1': ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'],
  'batch/v1': ['CronJob', 'Job'],
  'autoscaling/v1': ['HorizontalPodAutoscaler', 'Scale'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'policy/v1': ['Eviction', 'PodDisruptionBudget'],
  'networking.k8s.io/v1': ['IPAddress', 'Ingress', 'IngressClass', 'NetworkPolicy', 'ServiceCIDR'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'coordination.k8s.io/v1': ['Lease'],
  'discovery.k8s.io/v1': ['EndpointSlice'],
  'events.k8s.io/v1': ['Event'],
  'storage.k8s.io/v1': ['CSIDriver', 'CSINode', 'CSIStorageCapacity', 'StorageClass', 'VolumeAttachment'],
  'scheduling.k8s.io/v1': ['PriorityClass'],
  'node.k8s.io/v1': ['RuntimeClass'],
  'certificates.k8s.io/v1': ['CertificateSigningRequest'],
  'admissionregistration.k8s.io/v1': [
    'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
    'ValidatingWebhookConfiguration',
  ],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition'],
  'apiregistration.k8s.io/v1': ['APIService'],
  'flowcontrol.apiserver.k8s.io/v1': ['FlowSchema', 'PriorityLevelConfiguration'],
  'authentication.k8s.io/v1': ['SelfSubjectReview', 'TokenRequest', 'TokenReview'],
  'authorization.k8s.io/v1': [
    'LocalSubjectAccessReview',
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
    'SubjectAccessReview',
  ],
};
/** Kinds that are only ever sent or returned one at a time, so have no List kind. */
const UNLISTED = new Set([
  'Binding',
  'Scale',
  'Eviction',
  'TokenRequest',
  'TokenReview',
  'SelfSubjectReview',
  'LocalSubjectAccessReview',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
  'SubjectAccessReview',
]);

function splitGroupVersion(groupVersion: string): [string, string] {
  const slash = groupVersion.indexOf('/');
  return slash < 0 ? ['', groupVersion] : [groupVersion.slice(0, slash), groupVersion.slice(slash + 1)];
}

function definition(name: string): SchemaObject {
  const found = getDefinition(name);
  expect(found, name).toBeDefined();
  return found!;
}

/** Every `$ref` anywhere below a schema. */
function refsIn(schema: SchemaObject): string[] {
  const nested = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(schema.additionalProperties ? [schema.additionalProperties] : []),
  ];
  return [...(schema.$ref ? [schema.$ref] : []), ...nested.flatMap(refsIn)];
}

describe('built-in OpenAPI definitions', () => {
  it('come from the Kubernetes 1.33 spec', () => {
    expect(definitionsSource().kubernetesVersion).toMatch(/^v1\.33\./);
    expect(Object.keys(allDefinitions()).length).toBeGreaterThan(700);
  });

  it('define every kind (and its List) served by default, tagged with its group-version-kind', () => {
    for (const [groupVersion, kinds] of Object.entries(DEFAULT_KINDS)) {
      const [group, version] = splitGroupVersion(groupVersion);
      for (const kind of kinds.flatMap((k) => (UNLISTED.has(k) ? [k] : [k, `${k}List`]))) {
        const name = definitionNameForKind(group, version, kind);
        expect(name, `${groupVersion} ${kind}`).toBeDefined();
        const found = definition(name!);
        expect(found['x-kubernetes-group-version-kind']).toContainEqual({ group, version, kind });
        expect(Object.keys(found.properties ?? {})).toEqual(expect.arrayContaining(['apiVersion', 'kind']));
      }
    }
    expect(definitionNameForKind('', 'v1', 'Pod')).toBe(POD);
    expect(definitionNameForKind('events.k8s.io', 'v1', 'Event')).toBe('io.k8s.api.events.v1.Event');
    expect(definitionNameForKind('', 'v1', 'Event')).toBe('io.k8s.api.core.v1.Event');
    expect(definitionNameForKind('apps', 'v1', 'Pod')).toBeUndefined();
  });

  it('define every kind the apiserver resource table serves, including subresource kinds', () => {
    for (const resource of BUILTIN_RESOURCES) {
      const kinds = [
        { group: resource.group, version: resource.version, kind: resource.kind },
        ...resource.subresources
          .filter((sub) => !sub.kind.endsWith('Options'))
          .map((sub) => ({
            group: sub.group ?? resource.group,
            version: sub.version ?? resource.version,
            kind: sub.kind,
          })),
      ];
      for (const { group, version, kind } of kinds) {
        expect(definitionNameForKind(group, version, kind), `${group}/${version} ${kind}`).toBeDefined();
      }
    }
  });

  it('tag DeleteOptions and WatchEvent with every group version and Status with the core one', () => {
    expect(definitionNameForKind('apps', 'v1', 'DeleteOptions')).toBe(`${META}.DeleteOptions`);
    expect(definitionNameForKind('', 'v1', 'WatchEvent')).toBe(`${META}.WatchEvent`);
    expect(definitionNameForKind('flowcontrol.apiserver.k8s.io', 'v1', 'WatchEvent')).toBe(
      `${META}.WatchEvent`,
    );
    expect(definition(`${META}.Status`)['x-kubernetes-group-version-kind']).toEqual([
      { group: '', kind: 'Status', version: 'v1' },
    ]);
    expect(definitionNameForKind('', 'v1', 'APIResourceList')).toBe(`${META}.APIResourceList`);
  });

  it('leave references to objects (apiVersion + kind) untagged', () => {
    for (const name of ['io.k8s.api.core.v1.ObjectReference', `${META}.OwnerReference`]) {
      const found = definition(name);
      expect(found.properties?.kind).toBeDefined();
      expect(found['x-kubernetes-group-version-kind']).toBeUndefined();
    }
  });

  it('resolve every $ref to a definition', () => {
    const definitions = allDefinitions();
    for (const [name, schema] of Object.entries(definitions)) {
      for (const ref of refsIn(schema)) {
        const target = refDefinitionName(ref);
        expect(target !== undefined && Object.hasOwn(definitions, target), `${name} → ${ref}`).toBe(true);
      }
    }
  });

  it('give Pod.spec.containers strategic-merge by name and a map list keyed by name', () => {
    const containers = fieldSchema(POD, ['spec', 'containers']);
    expect(containers).toMatchObject({
      type: 'array',
      items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' },
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(containers?.description).toMatch(/^List of containers belonging to the pod\./);
  });

  it('carry the other patch and list extensions the apiserver publishes', () => {
    expect(fieldSchema(POD, ['spec', 'containers', 'ports'])).toMatchObject({
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
    });
    expect(fieldSchema(POD, ['spec', 'volumes'])).toMatchObject({
      'x-kubernetes-patch-strategy': 'merge,retainKeys',
      'x-kubernetes-patch-merge-key': 'name',
    });
    expect(fieldSchema(POD, ['metadata', 'finalizers'])).toMatchObject({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-list-type': 'set',
    });
    expect(fieldSchema(POD, ['metadata', 'ownerReferences'])).toMatchObject({
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-list-map-keys': ['uid'],
    });
    expect(fieldSchema('io.k8s.api.apps.v1.Deployment', ['spec', 'strategy'])).toMatchObject({
      'x-kubernetes-patch-strategy': 'retainKeys',
    });
    expect(fieldSchema(POD, ['spec', 'containers', 'args'])?.['x-kubernetes-list-type']).toBe('atomic');
    expect(fieldSchema(POD, ['spec', 'nodeSelector'])?.['x-kubernetes-map-type']).toBe('atomic');
    expect(definition(`${META}.LabelSelector`)['x-kubernetes-map-type']).toBe('atomic');
    expect(definition('io.k8s.api.core.v1.SeccompProfile')['x-kubernetes-unions']).toEqual([
      { discriminator: 'type', 'fields-to-discriminateBy': { localhostProfile: 'LocalhostProfile' } },
    ]);
  });

  it('shape IntOrString, Quantity and Time the way the v2 document does', () => {
    expect(definition('io.k8s.apimachinery.pkg.util.intstr.IntOrString')).toMatchObject({
      type: 'string',
      format: 'int-or-string',
    });
    expect(fieldSchema('io.k8s.api.core.v1.Service', ['spec', 'ports', 'targetPort'])?.$ref).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString',
    );
    const cpu = fieldSchema(POD, ['spec', 'containers', 'resources', 'limits', 'cpu']);
    expect(cpu).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' });
    expect(resolveSchema(cpu!)).toMatchObject({ type: 'string' });
    expect(fieldSchema(POD, ['metadata', 'creationTimestamp'])?.$ref).toBe(`#/definitions/${META}.Time`);
    expect(definition(`${META}.Time`)).toMatchObject({ type: 'string', format: 'date-time' });
    expect(fieldSchema(POD, ['spec', 'containers', 'ports', 'containerPort'])).toMatchObject({
      type: 'integer',
      format: 'int32',
    });
    expect(fieldSchema('io.k8s.api.core.v1.Secret', ['data', 'tls.crt'])).toEqual({
      format: 'byte',
      type: 'string',
    });
  });

  it('describe every ObjectMeta field and every kind', () => {
    const objectMeta = definition(`${META}.ObjectMeta`);
    expect(objectMeta.description).toMatch(/^ObjectMeta is metadata/);
    const fields = Object.entries(objectMeta.properties ?? {});
    expect(fields.length).toBeGreaterThan(10);
    for (const [field, schema] of fields) expect(schema.description, field).toBeTruthy();
    expect(objectMeta.properties?.name?.description).toMatch(/^Name must be unique within a namespace\./);
    for (const [groupVersion, kinds] of Object.entries(DEFAULT_KINDS)) {
      const [group, version] = splitGroupVersion(groupVersion);
      for (const kind of kinds) {
        const name = definitionNameForKind(group, version, kind);
        expect(definition(name ?? kind).description, kind).toBeTruthy();
      }
    }
  });

  it('list required fields', () => {
    expect(definition('io.k8s.api.core.v1.Container').required).toEqual(['name']);
    expect(definition('io.k8s.api.core.v1.PodSpec').required).toEqual(['containers']);
    expect(definition('io.k8s.api.apps.v1.DeploymentSpec').required).toEqual(['selector', 'template']);
    expect(definition(`${META}.OwnerReference`).required).toEqual(
      expect.arrayContaining(['apiVersion', 'kind', 'name', 'uid']),
    );
    expect(definition(POD).required).toBeUndefined();
  });

  it('resolve field paths through $refs, list items and map values', () => {
    expect(fieldSchema(POD, [])).toBe(getDefinition(POD));
    expect(fieldSchema(POD, ['metadata', 'labels', 'app'])).toEqual({ type: 'string' });
    expect(resolveSchema(fieldSchema(POD, ['spec', 'containers'])!)).toMatchObject({ type: 'array' });
    expect(resolveSchema(fieldSchema(POD, ['spec'])!)).toBe(getDefinition('io.k8s.api.core.v1.PodSpec'));
    expect(fieldSchema(POD, ['spec', 'containers', 'noSuchField'])).toBeUndefined();
    expect(fieldSchema(POD, ['spec', 'containers', 'name', 'deeper'])).toBeUndefined();
    expect(fieldSchema('io.k8s.api.core.v1.NoSuchKind', ['spec'])).toBeUndefined();
    expect(getDefinition('toString')).toBeUndefined();
  });
});
