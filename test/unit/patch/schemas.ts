import type { FieldSchema, PatchSchema } from '../../../src/apiserver/patch/index.js';

// Hand-written patch schemas for parts of Pod, Deployment and Service, with the patchStrategy /
// patchMergeKey tags of k8s.io/api v0.33 (core/v1, apps/v1) and apimachinery's ObjectMeta.

const primitive: FieldSchema = { kind: 'primitive' };
const stringMap: FieldSchema = { kind: 'map', values: primitive };
const atomicStrings: FieldSchema = { kind: 'primitiveList' };

function fields(names: string[], extra: Record<string, FieldSchema> = {}): PatchSchema {
  return { fields: { ...Object.fromEntries(names.map((name) => [name, primitive])), ...extra } };
}

export const objectMetaSchema: PatchSchema = fields(
  ['name', 'namespace', 'uid', 'resourceVersion', 'generation'],
  {
    labels: stringMap,
    annotations: stringMap,
    finalizers: { kind: 'primitiveList', patchStrategy: 'merge' },
    ownerReferences: {
      kind: 'objectList',
      patchStrategy: 'merge',
      patchMergeKey: 'uid',
      items: fields(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']),
    },
  },
);

const envVarSchema = fields(['name', 'value'], {
  valueFrom: {
    kind: 'object',
    schema: fields([], {
      configMapKeyRef: { kind: 'object', schema: fields(['name', 'key', 'optional']) },
      fieldRef: { kind: 'object', schema: fields(['apiVersion', 'fieldPath']) },
    }),
  },
});

export const containerSchema: PatchSchema = fields(['name', 'image', 'imagePullPolicy', 'workingDir'], {
  command: atomicStrings,
  args: atomicStrings,
  ports: {
    kind: 'objectList',
    patchStrategy: 'merge',
    patchMergeKey: 'containerPort',
    items: fields(['name', 'containerPort', 'hostPort', 'protocol']),
  },
  env: { kind: 'objectList', patchStrategy: 'merge', patchMergeKey: 'name', items: envVarSchema },
  volumeMounts: {
    kind: 'objectList',
    patchStrategy: 'merge',
    patchMergeKey: 'mountPath',
    items: fields(['name', 'mountPath', 'readOnly', 'subPath']),
  },
  resources: { kind: 'object', schema: fields([], { limits: stringMap, requests: stringMap }) },
});

const volumeSchema = fields(['name'], {
  emptyDir: { kind: 'object', schema: fields(['medium', 'sizeLimit']) },
  configMap: {
    kind: 'object',
    schema: fields(['name', 'defaultMode', 'optional'], {
      items: { kind: 'objectList', items: fields(['key', 'path', 'mode']) },
    }),
  },
  secret: { kind: 'object', schema: fields(['secretName', 'defaultMode', 'optional']) },
  hostPath: { kind: 'object', schema: fields(['path', 'type']) },
  persistentVolumeClaim: { kind: 'object', schema: fields(['claimName', 'readOnly']) },
});

export const podSpecSchema: PatchSchema = fields(
  ['restartPolicy', 'serviceAccountName', 'nodeName', 'hostNetwork', 'terminationGracePeriodSeconds'],
  {
    containers: { kind: 'objectList', patchStrategy: 'merge', patchMergeKey: 'name', items: containerSchema },
    initContainers: {
      kind: 'objectList',
      patchStrategy: 'merge',
      patchMergeKey: 'name',
      items: containerSchema,
    },
    volumes: {
      kind: 'objectList',
      patchStrategy: 'merge,retainKeys',
      patchMergeKey: 'name',
      items: volumeSchema,
    },
    imagePullSecrets: {
      kind: 'objectList',
      patchStrategy: 'merge',
      patchMergeKey: 'name',
      items: fields(['name']),
    },
    tolerations: {
      kind: 'objectList',
      items: fields(['key', 'operator', 'value', 'effect', 'tolerationSeconds']),
    },
    nodeSelector: stringMap,
  },
);

export const podSchema: PatchSchema = fields(['apiVersion', 'kind'], {
  metadata: { kind: 'object', schema: objectMetaSchema },
  spec: { kind: 'object', schema: podSpecSchema },
  status: {
    kind: 'object',
    schema: fields(['phase', 'podIP'], {
      conditions: {
        kind: 'objectList',
        patchStrategy: 'merge',
        patchMergeKey: 'type',
        items: fields(['type', 'status', 'reason', 'message', 'lastTransitionTime']),
      },
      podIPs: { kind: 'objectList', patchStrategy: 'merge', patchMergeKey: 'ip', items: fields(['ip']) },
    }),
  },
});

const labelSelectorSchema = fields([], {
  matchLabels: stringMap,
  matchExpressions: { kind: 'objectList', items: fields(['key', 'operator'], { values: atomicStrings }) },
});

export const deploymentSchema: PatchSchema = fields(['apiVersion', 'kind'], {
  metadata: { kind: 'object', schema: objectMetaSchema },
  spec: {
    kind: 'object',
    schema: fields(['replicas', 'minReadySeconds', 'paused', 'revisionHistoryLimit'], {
      selector: { kind: 'object', schema: labelSelectorSchema },
      template: {
        kind: 'object',
        schema: fields([], {
          metadata: { kind: 'object', schema: objectMetaSchema },
          spec: { kind: 'object', schema: podSpecSchema },
        }),
      },
      strategy: {
        kind: 'object',
        patchStrategy: 'retainKeys',
        schema: fields(['type'], {
          rollingUpdate: { kind: 'object', schema: fields(['maxSurge', 'maxUnavailable']) },
        }),
      },
    }),
  },
  status: {
    kind: 'object',
    schema: fields(['replicas', 'readyReplicas', 'observedGeneration'], {
      conditions: {
        kind: 'objectList',
        patchStrategy: 'merge',
        patchMergeKey: 'type',
        items: fields(['type', 'status', 'reason', 'message']),
      },
    }),
  },
});

export const serviceSchema: PatchSchema = fields(['apiVersion', 'kind'], {
  metadata: { kind: 'object', schema: objectMetaSchema },
  spec: {
    kind: 'object',
    schema: fields(['type', 'clusterIP', 'sessionAffinity', 'externalTrafficPolicy'], {
      ports: {
        kind: 'objectList',
        patchStrategy: 'merge',
        patchMergeKey: 'port',
        items: fields(['name', 'protocol', 'port', 'targetPort', 'nodePort']),
      },
      selector: stringMap,
      clusterIPs: atomicStrings,
    }),
  },
});

/** The shapes apimachinery's own tests use: a merging list of maps and a merging int list. */
export const mergeItemSchema: PatchSchema = fields(['name', 'value', 'other'], {
  mergingList: {
    kind: 'objectList',
    patchStrategy: 'merge',
    patchMergeKey: 'name',
    items: fields(['name', 'value']),
  },
  mergingIntList: { kind: 'primitiveList', patchStrategy: 'merge' },
  nonMergingList: { kind: 'objectList', items: fields(['name', 'value']) },
});
