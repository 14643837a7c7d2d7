import { describe, expect, it } from 'vitest';
import {
  applyStrategicMergePatch,
  type JsonObject,
  type PatchSchema,
} from '../../../src/apiserver/patch/index.js';
import { deploymentSchema, mergeItemSchema, podSchema, serviceSchema } from './schemas.js';

function deployment(): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, finalizers: ['a.io/x', 'b.io/y'] },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.26',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
            { name: 'sidecar', image: 'busybox', args: ['sleep', '3600'] },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
          nodeSelector: { disk: 'ssd' },
        },
      },
    },
  };
}

function podSpecOf(object: JsonObject): JsonObject {
  return ((object.spec as JsonObject).template as JsonObject).spec as JsonObject;
}

function containersOf(object: JsonObject): JsonObject[] {
  return podSpecOf(object).containers as JsonObject[];
}

interface Case {
  name: string;
  patch: JsonObject;
  check: (result: JsonObject) => void;
}

// Patches kubectl sends: scale, set image, rollout restart, label/annotate, apply (three-way,
// with $setElementOrder, $patch: delete, $retainKeys), edit (two-way) and patch.
const deploymentCases: Case[] = [
  {
    name: 'kubectl scale: replicas',
    patch: { spec: { replicas: 5 } },
    check: (result) => expect((result.spec as JsonObject).replicas).toBe(5),
  },
  {
    name: 'kubectl set image: merges the container by name, keeping its other fields',
    patch: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } },
    check: (result) => {
      const [nginx, sidecar] = containersOf(result);
      expect(nginx).toMatchObject({ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] });
      expect(sidecar).toEqual({ name: 'sidecar', image: 'busybox', args: ['sleep', '3600'] });
    },
  },
  {
    name: 'kubectl rollout restart: adds a template annotation',
    patch: {
      spec: {
        template: {
          metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-05-01T10:00:00Z' } },
        },
      },
    },
    check: (result) =>
      expect(
        (((result.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations,
      ).toEqual({
        'kubectl.kubernetes.io/restartedAt': '2025-05-01T10:00:00Z',
      }),
  },
  {
    name: 'kubectl label: adds one label and removes another with null',
    patch: { metadata: { labels: { tier: 'frontend', app: null } } },
    check: (result) => expect((result.metadata as JsonObject).labels).toEqual({ tier: 'frontend' }),
  },
  {
    name: 'kubectl apply: changes an image with $setElementOrder for the containers',
    patch: {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}\n' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
            containers: [{ name: 'nginx', image: 'nginx:1.27' }],
          },
        },
      },
    },
    check: (result) => {
      expect(containersOf(result).map((c) => [c.name, c.image])).toEqual([
        ['nginx', 'nginx:1.27'],
        ['sidecar', 'busybox'],
      ]);
      expect(podSpecOf(result)).not.toHaveProperty('$setElementOrder/containers');
    },
  },
  {
    name: 'kubectl apply: removes a container with $patch: delete',
    patch: {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }],
            containers: [{ $patch: 'delete', name: 'sidecar' }],
          },
        },
      },
    },
    check: (result) => expect(containersOf(result).map((c) => c.name)).toEqual(['nginx']),
  },
  {
    name: 'kubectl apply: adds an env var between existing ones, in the $setElementOrder order',
    patch: {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'A' }, { name: 'C' }, { name: 'B' }],
                env: [{ name: 'C', value: '3' }],
                name: 'nginx',
              },
            ],
          },
        },
      },
    },
    check: (result) =>
      expect(containersOf(result)[0]!.env).toEqual([
        { name: 'A', value: '1' },
        { name: 'C', value: '3' },
        { name: 'B', value: '2' },
      ]),
  },
  {
    name: 'kubectl apply: RollingUpdate to Recreate clears rollingUpdate through $retainKeys',
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    check: (result) => expect((result.spec as JsonObject).strategy).toEqual({ type: 'Recreate' }),
  },
  {
    name: 'kubectl apply: a volume switching source keeps only the $retainKeys fields',
    patch: {
      spec: {
        template: {
          spec: {
            '$setElementOrder/volumes': [{ name: 'data' }],
            volumes: [
              { $retainKeys: ['configMap', 'name'], configMap: { name: 'web-config' }, name: 'data' },
            ],
          },
        },
      },
    },
    check: (result) =>
      expect(podSpecOf(result).volumes).toEqual([{ name: 'data', configMap: { name: 'web-config' } }]),
  },
  {
    name: 'kubectl patch: a new container without $setElementOrder goes first',
    patch: { spec: { template: { spec: { containers: [{ name: 'redis', image: 'redis' }] } } } },
    check: (result) => expect(containersOf(result).map((c) => c.name)).toEqual(['redis', 'nginx', 'sidecar']),
  },
  {
    name: 'tolerations have no patch strategy: the list is replaced',
    patch: {
      spec: {
        template: { spec: { tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] } },
      },
    },
    check: (result) =>
      expect(podSpecOf(result).tolerations).toEqual([
        { effect: 'NoSchedule', key: 'disktype', value: 'ssd' },
      ]),
  },
  {
    name: 'args have no patch strategy: the list is replaced',
    patch: { spec: { template: { spec: { containers: [{ name: 'sidecar', args: ['sleep', '10'] }] } } } },
    check: (result) => expect(containersOf(result)[1]!.args).toEqual(['sleep', '10']),
  },
  {
    name: 'finalizers merge as a set: new ones first, duplicates dropped',
    patch: { metadata: { finalizers: ['c.io/z', 'a.io/x'] } },
    check: (result) =>
      expect((result.metadata as JsonObject).finalizers).toEqual(['c.io/z', 'a.io/x', 'b.io/y']),
  },
  {
    name: 'finalizers: $deleteFromPrimitiveList removes entries',
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x', 'not.there/q'] } },
    check: (result) => expect((result.metadata as JsonObject).finalizers).toEqual(['b.io/y']),
  },
  {
    name: 'ports merge by containerPort, env merges by name',
    patch: {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'nginx',
                ports: [{ containerPort: 443, protocol: 'TCP' }],
                env: [{ name: 'B', value: 'two' }],
              },
            ],
          },
        },
      },
    },
    check: (result) => {
      const [nginx] = containersOf(result);
      expect(nginx!.ports).toEqual([
        { containerPort: 443, protocol: 'TCP' },
        { containerPort: 80, protocol: 'TCP' },
      ]);
      expect(nginx!.env).toEqual([
        { name: 'A', value: '1' },
        { name: 'B', value: 'two' },
      ]);
    },
  },
  {
    name: 'volumeMounts merge by mountPath',
    patch: {
      spec: {
        template: {
          spec: { containers: [{ name: 'nginx', volumeMounts: [{ mountPath: '/data', readOnly: true }] }] },
        },
      },
    },
    check: (result) =>
      expect(containersOf(result)[0]!.volumeMounts).toEqual([
        { name: 'data', mountPath: '/data', readOnly: true },
      ]),
  },
  {
    name: '$patch: replace in a list replaces it with the other items',
    patch: {
      spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } },
    },
    check: (result) => expect(containersOf(result)).toEqual([{ name: 'only', image: 'x' }]),
  },
  {
    name: '$patch: replace in a map replaces the map',
    patch: { spec: { template: { spec: { nodeSelector: { $patch: 'replace', zone: 'a' } } } } },
    check: (result) => expect(podSpecOf(result).nodeSelector).toEqual({ zone: 'a' }),
  },
  {
    name: '$patch: delete in a map empties it',
    patch: { spec: { template: { spec: { nodeSelector: { $patch: 'delete' } } } } },
    check: (result) => expect(podSpecOf(result).nodeSelector).toEqual({}),
  },
  {
    name: 'null deletes a field',
    patch: { spec: { template: { spec: { nodeSelector: null } } } },
    check: (result) => expect(podSpecOf(result)).not.toHaveProperty('nodeSelector'),
  },
  {
    name: 'a new field drops its null members and nested directives',
    patch: {
      spec: {
        template: {
          spec: {
            hostAliases: [
              { ip: '10.0.0.1', hostnames: null },
              { $patch: 'delete', ip: 'x' },
            ],
          },
        },
      },
    },
    check: (result) => expect(podSpecOf(result).hostAliases).toEqual([{ ip: '10.0.0.1' }]),
  },
  {
    name: 'a value of another JSON type replaces the old one',
    patch: { spec: { replicas: '3', selector: 'app=web' } },
    check: (result) => expect(result.spec).toMatchObject({ replicas: '3', selector: 'app=web' }),
  },
  {
    name: 'unknown fields merge like a JSON merge patch',
    patch: { spec: { progressDeadlineSeconds: 600, extra: { a: { b: 1 } } } },
    check: (result) =>
      expect(result.spec).toMatchObject({ progressDeadlineSeconds: 600, extra: { a: { b: 1 } } }),
  },
];

describe('applyStrategicMergePatch on a Deployment', () => {
  it.each(deploymentCases)('$name', ({ patch, check }) => {
    const original = deployment();
    check(applyStrategicMergePatch(original, patch, deploymentSchema));
    expect(original).toEqual(deployment());
  });
});

describe('applyStrategicMergePatch on a Service', () => {
  const service: JsonObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web' },
    spec: {
      selector: { app: 'web' },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
        { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
      ],
    },
  };

  it('merges ports by port', () => {
    const result = applyStrategicMergePatch(
      service,
      { spec: { ports: [{ port: 443, targetPort: 9443 }] } },
      serviceSchema,
    );
    expect((result.spec as JsonObject).ports).toEqual([
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 9443, protocol: 'TCP' },
    ]);
  });

  it('merges a UDP port into the TCP one with the same number, as Kubernetes does', () => {
    const dns: JsonObject = { spec: { ports: [{ port: 53, protocol: 'TCP', name: 'dns-tcp' }] } };
    const result = applyStrategicMergePatch(
      dns,
      { spec: { ports: [{ port: 53, protocol: 'UDP', name: 'dns' }] } },
      serviceSchema,
    );
    expect((result.spec as JsonObject).ports).toEqual([{ port: 53, protocol: 'UDP', name: 'dns' }]);
  });
});

describe('applyStrategicMergePatch on a Pod', () => {
  it('merges status conditions by type (kubelet status patches)', () => {
    const pod: JsonObject = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'PodScheduled', status: 'True' },
        ],
      },
    };
    const patch: JsonObject = {
      status: {
        '$setElementOrder/conditions': [{ type: 'PodScheduled' }, { type: 'Ready' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        podIP: '10.244.1.5',
        podIPs: [{ ip: '10.244.1.5' }],
      },
    };
    expect(applyStrategicMergePatch(pod, patch, podSchema).status).toEqual({
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
      podIP: '10.244.1.5',
      podIPs: [{ ip: '10.244.1.5' }],
    });
  });

  it('keeps nulls and directives inside a list it takes whole, like apimachinery', () => {
    const pod: JsonObject = { spec: { tolerations: [{ key: 'a' }] } };
    const result = applyStrategicMergePatch(
      pod,
      { spec: { tolerations: [{ key: 'b', value: null }] } },
      podSchema,
    );
    expect((result.spec as JsonObject).tolerations).toEqual([{ key: 'b', value: null }]);
  });
});

// Ordering cases from apimachinery's own strategic merge patch tests (live object + patch → result).
const orderCases: { name: string; live: JsonObject; patch: JsonObject; result: JsonObject }[] = [
  {
    name: 'server-only items stay after the item they followed',
    live: {
      mergingList: [
        { name: 1, other: 'a' },
        { name: 3, value: 3 },
        { name: 4, value: 4 },
        { name: 2, value: 2 },
        { name: 9 },
      ],
    },
    patch: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 3 }, { name: 1 }] },
    result: {
      mergingList: [
        { name: 4, value: 4 },
        { name: 2, value: 2 },
        { name: 3, value: 3 },
        { name: 1, other: 'a' },
        { name: 9 },
      ],
    },
  },
  {
    name: 'server-only items in the middle',
    live: {
      mergingList: [
        { name: 1, other: 'a' },
        { name: 2, value: 2 },
        { name: 7 },
        { name: 9 },
        { name: 8 },
        { name: 3, value: 3 },
        { name: 4, value: 4 },
      ],
    },
    patch: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }] },
    result: {
      mergingList: [
        { name: 2, value: 2 },
        { name: 1, other: 'a' },
        { name: 7 },
        { name: 9 },
        { name: 8 },
        { name: 4, value: 4 },
        { name: 3, value: 3 },
      ],
    },
  },
  {
    name: 'duplicate merge keys',
    live: {
      mergingList: [
        { name: 1 },
        { name: 2, value: 'dup1' },
        { name: 3 },
        { name: 2, value: 'dup2' },
        { name: 4 },
      ],
    },
    patch: {
      '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }, { name: 2 }],
    },
    result: {
      mergingList: [
        { name: 2, value: 'dup1' },
        { name: 2, value: 'dup2' },
        { name: 1 },
        { name: 4 },
        { name: 3 },
      ],
    },
  },
  {
    name: 'an int list: a new item placed by $setElementOrder among server-only ones',
    live: { mergingIntList: [1, 4, 2] },
    patch: { '$setElementOrder/mergingIntList': [3, 1, 2], mergingIntList: [3] },
    result: { mergingIntList: [3, 1, 4, 2] },
  },
  {
    name: 'an int list: add with the order of the patch',
    live: { mergingIntList: [1, 2, 4] },
    patch: { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3] },
    result: { mergingIntList: [1, 2, 3, 4] },
  },
  {
    name: 'an int list: delete and reorder',
    live: { mergingIntList: [1, 2, 3] },
    patch: { '$setElementOrder/mergingIntList': [2, 1], '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [2, 1] },
  },
  {
    name: 'an int list with duplicates',
    live: { mergingIntList: [1, 2, 3, 2, 4] },
    patch: { '$setElementOrder/mergingIntList': [2, 1, 4, 3, 2] },
    result: { mergingIntList: [2, 2, 1, 4, 3] },
  },
  {
    name: 'delete in one list and reorder another',
    live: {
      mergingList: [
        { name: 'a', value: 'a' },
        { name: 'b', value: 'b' },
      ],
    },
    patch: {
      '$setElementOrder/mergingList': [{ name: 'b' }],
      mergingList: [{ $patch: 'delete', name: 'a' }],
    },
    result: { mergingList: [{ name: 'b', value: 'b' }] },
  },
  {
    // kubectl apply swapping a container while something else injected one: apimachinery's in-place
    // edit of the live list puts the injected item first.
    name: 'delete and add with a server-only item',
    live: { mergingList: [{ name: 'old' }, { name: 'kept' }, { name: 'injected' }] },
    patch: {
      '$setElementOrder/mergingList': [{ name: 'new' }, { name: 'kept' }],
      mergingList: [{ name: 'new' }, { $patch: 'delete', name: 'old' }],
    },
    result: { mergingList: [{ name: 'injected' }, { name: 'new' }, { name: 'kept' }] },
  },
  {
    name: '$deleteFromPrimitiveList of a missing item leaves the list',
    live: { mergingIntList: [1, 2] },
    patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [1, 2] },
  },
  {
    name: '$deleteFromPrimitiveList on a missing list does not create it',
    live: {},
    patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: {},
  },
];

describe('list order', () => {
  it.each(orderCases)('$name', ({ live, patch, result }) => {
    expect(applyStrategicMergePatch(live, patch, mergeItemSchema)).toEqual(result);
  });
});

const mapOfObjects: PatchSchema = {
  fields: { attributes: { kind: 'map', values: { kind: 'object', schema: { fields: {} } } } },
};

// Errors with apimachinery's texts and the status kube-apiserver gives them.
const errorCases: {
  name: string;
  doc?: JsonObject;
  patch: unknown;
  schema?: PatchSchema;
  code: number;
  message: string;
}[] = [
  {
    name: 'an item without its merge key',
    patch: { mergingList: [{ value: 'b' }] },
    code: 500,
    message: 'map: map[value:b] does not contain declared merge key: name',
  },
  {
    name: 'an unknown list directive',
    patch: { mergingList: [{ $patch: 'foo', name: 1 }] },
    code: 500,
    message: 'unknown patch type: foo in map: map[$patch:foo name:1]',
  },
  {
    name: '$patch: merge in a list',
    patch: { mergingList: [{ $patch: 'merge' }] },
    code: 500,
    message: 'merging lists cannot yet be specified in the patch',
  },
  {
    name: '$patch: merge in a map',
    doc: { mergingList: [], other: {} },
    patch: { other: { $patch: 'merge' } },
    code: 500,
    message: 'unknown patch type: merge in map: map[$patch:merge]',
  },
  {
    name: 'a directive that is not a string',
    patch: { $patch: 5 },
    code: 500,
    message: 'unknown patch type: %!s(int64=5) in map: map[$patch:5]',
  },
  {
    name: '$retainKeys not a list',
    patch: { $retainKeys: 'name' },
    code: 400,
    message: 'invalid patch format of retainKeys',
  },
  {
    name: 'a patched field missing from $retainKeys',
    patch: { $retainKeys: ['name'], value: 'x' },
    code: 400,
    message: 'invalid patch format of retainKeys',
  },
  {
    name: '$setElementOrder without a field',
    patch: { $setElementOrderX: [] },
    code: 400,
    message: 'invalid patch format of setElementOrder list',
  },
  {
    name: '$deleteFromPrimitiveList without a field',
    patch: { $deleteFromPrimitiveListX: [1] },
    code: 400,
    message: 'invalid patch format of primitive list',
  },
  {
    name: '$setElementOrder not a list',
    patch: { '$setElementOrder/mergingList': 'a' },
    code: 500,
    message: 'expected a []interface {}, but received a string',
  },
  {
    name: 'a patch list out of the $setElementOrder order',
    doc: { mergingList: [{ name: 1 }, { name: 3 }, { name: 2 }] },
    patch: {
      '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }, { name: 3 }],
      mergingList: [
        { name: 3, value: 3 },
        { name: 1, value: 1 },
      ],
    },
    code: 500,
    message:
      "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
  },
  {
    name: 'a merging list of lists',
    doc: { mergingIntList: [[1]] },
    patch: { mergingIntList: [[2]] },
    code: 422,
    message: 'the server rejected our request due to an error in our request',
  },
  {
    name: 'list items of different JSON types',
    doc: { mergingIntList: ['a'] },
    patch: { mergingIntList: [{ a: 'b' }] },
    code: 500,
    message: 'list element types are not identical: [[a] [map[a:b]]]',
  },
  {
    name: 'objects inside a map (Go finds no struct there)',
    doc: { attributes: { a: { int: 1 } } },
    patch: { attributes: { a: { string: 'x' } } },
    schema: mapOfObjects,
    code: 500,
    message: 'merging an object in json but data type is not struct, instead is: map',
  },
  {
    name: 'a patch that is not an object',
    patch: ['a'],
    code: 400,
    message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
  },
];

describe('strategic merge patch errors', () => {
  it.each(errorCases)('$name', ({ doc, patch, schema, code, message }) => {
    const live = doc ?? { mergingList: [{ name: 1, value: 'a' }], mergingIntList: [1] };
    let thrown: unknown;
    try {
      applyStrategicMergePatch(live, patch, schema ?? mergeItemSchema);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name: 'PatchError', code, message });
  });

  it('keeps the apimachinery text of a 422 in detail', () => {
    expect(() =>
      applyStrategicMergePatch({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }, mergeItemSchema),
    ).toThrow(expect.objectContaining({ reason: 'Invalid', detail: 'lists of lists are not supported' }));
  });
});
