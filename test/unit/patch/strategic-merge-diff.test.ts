import { describe, expect, it } from 'vitest';
import {
  applyStrategicMergePatch,
  createTwoWayStrategicMergePatch,
  type JsonObject,
} from '../../../src/apiserver/patch/index.js';
import { deploymentSchema, mergeItemSchema } from './schemas.js';

const live: JsonObject = {
  metadata: { name: 'web', labels: { app: 'web', old: 'x' }, finalizers: ['a', 'b'] },
  spec: {
    replicas: 1,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    template: {
      spec: {
        containers: [
          { name: 'nginx', image: 'nginx:1.26', env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'busybox' },
        ],
        tolerations: [{ key: 'a' }],
      },
    },
  },
};

// What kubectl edit sends: the two-way patch from the object it showed to the edited one.
const cases: { name: string; edit: (object: JsonObject) => void; patch: JsonObject }[] = [
  { name: 'no change', edit: () => {}, patch: {} },
  {
    name: 'a scalar and a removed label',
    edit: (o) => {
      (o.spec as JsonObject).replicas = 3;
      delete ((o.metadata as JsonObject).labels as JsonObject).old;
    },
    patch: { metadata: { labels: { old: null } }, spec: { replicas: 3 } },
  },
  {
    name: 'a changed image',
    edit: (o) => {
      (
        (((o.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[]
      )[0]!.image = 'nginx:1.27';
    },
    patch: {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
            containers: [{ name: 'nginx', image: 'nginx:1.27' }],
          },
        },
      },
    },
  },
  {
    name: 'a removed container',
    edit: (o) => {
      const spec = ((o.spec as JsonObject).template as JsonObject).spec as JsonObject;
      spec.containers = (spec.containers as JsonObject[]).slice(0, 1);
    },
    patch: {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }],
            containers: [{ name: 'sidecar', $patch: 'delete' }],
          },
        },
      },
    },
  },
  {
    name: 'a removed finalizer',
    edit: (o) => {
      (o.metadata as JsonObject).finalizers = ['b'];
    },
    patch: {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], '$setElementOrder/finalizers': ['b'] },
    },
  },
  {
    name: 'a strategy switch builds $retainKeys',
    edit: (o) => {
      (o.spec as JsonObject).strategy = { type: 'Recreate' };
    },
    patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
  },
  {
    name: 'an atomic list is sent whole',
    edit: (o) => {
      (((o.spec as JsonObject).template as JsonObject).spec as JsonObject).tolerations = [{ key: 'b' }];
    },
    patch: { spec: { template: { spec: { tolerations: [{ key: 'b' }] } } } },
  },
];

describe('createTwoWayStrategicMergePatch', () => {
  it.each(cases)('$name', ({ edit, patch }) => {
    const edited = structuredClone(live);
    edit(edited);
    const created = createTwoWayStrategicMergePatch(live, edited, deploymentSchema);
    expect(created).toEqual(patch);
    expect(applyStrategicMergePatch(live, created, deploymentSchema)).toEqual(edited);
  });

  it('orders a reordered merging list with $setElementOrder only', () => {
    const original: JsonObject = {
      mergingList: [{ name: 'a', value: 'a' }, { name: 'b' }],
      mergingIntList: [1, 2],
    };
    const modified: JsonObject = {
      mergingList: [{ name: 'b' }, { name: 'a', value: 'a' }],
      mergingIntList: [2, 1],
    };
    const patch = createTwoWayStrategicMergePatch(original, modified, mergeItemSchema);
    expect(patch).toEqual({
      '$setElementOrder/mergingList': [{ name: 'b' }, { name: 'a' }],
      '$setElementOrder/mergingIntList': [2, 1],
    });
    expect(applyStrategicMergePatch(original, patch, mergeItemSchema)).toEqual(modified);
  });
});
