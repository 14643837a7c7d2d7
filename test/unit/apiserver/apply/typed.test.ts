// structured-merge-diff's typed package over tkube's built-in definitions and CRD schemas.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../src/api/types/apiextensions-v1.generated.js';
import { fieldsV1JsonToSet, setToFieldsV1Json } from '../../../../src/apiserver/apply/fieldpath/fields-v1.js';
import { builtinType } from '../../../../src/apiserver/apply/typed/builtin-types.js';
import { compareTyped } from '../../../../src/apiserver/apply/typed/compare.js';
import { customResourceType } from '../../../../src/apiserver/apply/typed/custom-resource-types.js';
import { keepRight, mergeValues } from '../../../../src/apiserver/apply/typed/merge.js';
import { reconcileFieldSetWithSchema } from '../../../../src/apiserver/apply/typed/reconcile-schema.js';
import { removeItems } from '../../../../src/apiserver/apply/typed/remove.js';
import type { SchemaType } from '../../../../src/apiserver/apply/typed/schema.js';
import { toFieldSet } from '../../../../src/apiserver/apply/typed/to-field-set.js';
import type { JsonValue } from '../../../../src/apiserver/patch/json-value.js';

const deploymentType = builtinType('apps', 'v1', 'Deployment') as SchemaType;
const podType = builtinType('', 'v1', 'Pod') as SchemaType;

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels: { app: 'x' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'x' } },
    template: {
      metadata: { labels: { app: 'x' } },
      spec: {
        containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    },
  },
};

describe('field sets of built-in objects', () => {
  it('matches what kube-apiserver records for a kubectl apply of a Deployment', () => {
    const set = toFieldSet(deploymentType, deployment);
    expect(setToFieldsV1Json(set)).toBe(
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"web\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}},"f:tolerations":{}}}}}',
    );
  });

  it('names set items by value and map entries that hold maps or null', () => {
    const pod = {
      metadata: { finalizers: ['a', 'b'], annotations: { n: null } },
      spec: { containers: [{ name: 'c', args: ['x'], resources: {} }] },
    };
    expect(setToFieldsV1Json(toFieldSet(podType, pod as JsonValue))).toBe(
      '{"f:metadata":{"f:annotations":{"f:n":{}},"f:finalizers":{"v:\\"a\\"":{},"v:\\"b\\"":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:args":{},"f:name":{},"f:resources":{}}}}}',
    );
  });

  it('refuses list-map items without their key and fields the schema does not declare', () => {
    expect(() => toFieldSet(podType, { spec: { containers: [{ image: 'x' }] } })).toThrow(
      'associative list with keys has an element that omits key field "name"',
    );
    expect(() => toFieldSet(podType, { spec: { bogus: 1 } })).toThrow(
      '.spec.bogus: field not declared in schema',
    );
  });
});

describe('merge, compare and remove', () => {
  it('merges list maps by key and keeps the right-hand order', () => {
    const live = {
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '1' },
        ],
      },
    };
    const config = {
      spec: {
        containers: [
          { name: 'c', image: '2' },
          { name: 'a', image: '2' },
        ],
      },
    };
    expect(mergeValues(podType, live, config, keepRight)).toEqual({
      spec: {
        containers: [
          { name: 'c', image: '2' },
          { name: 'a', image: '2' },
          { name: 'b', image: '1' },
        ],
      },
    });
  });

  it('replaces atomic lists whole', () => {
    const live = { spec: { containers: [{ name: 'a', args: ['1', '2'] }] } };
    const config = { spec: { containers: [{ name: 'a', args: ['3'] }] } };
    expect(mergeValues(podType, live, config, keepRight)).toEqual(config);
  });

  it('reports duplicate keys', () => {
    const config = { spec: { containers: [{ name: 'a' }, { name: 'a' }] } };
    expect(() => mergeValues(podType, {}, config, keepRight)).toThrow(
      '.spec.containers: duplicate entries for key [name="a"]',
    );
  });

  it('compares into added, removed and modified fields', () => {
    const c = compareTyped(
      podType,
      { metadata: { labels: { a: '1', b: '1' } } },
      { metadata: { labels: { a: '2', c: '1' } } },
    );
    expect(setToFieldsV1Json(c.modified)).toBe('{"f:metadata":{"f:labels":{"f:a":{}}}}');
    expect(setToFieldsV1Json(c.added)).toBe('{"f:metadata":{"f:labels":{"f:c":{}}}}');
    expect(setToFieldsV1Json(c.removed)).toBe('{"f:metadata":{"f:labels":{"f:b":{}}}}');
  });

  it('removes named items and leaves emptied maps null, as upstream does', () => {
    const value = { metadata: { labels: { a: '1' }, annotations: { x: '1', y: '2' } } };
    const set = fieldsV1JsonToSet('{"f:metadata":{"f:labels":{"f:a":{}},"f:annotations":{"f:x":{}}}}');
    expect(removeItems(podType, value, set)).toEqual({ metadata: { labels: null, annotations: { y: '2' } } });
  });
});

describe('custom resource types', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'protocol'],
            items: {
              type: 'object',
              properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
            },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          selector: {
            type: 'object',
            'x-kubernetes-map-type': 'atomic',
            additionalProperties: { type: 'string' },
          },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  const type = customResourceType(schema);

  it('follows list types, map types, key defaults and preserved unknown fields', () => {
    const object = {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't', labels: { a: 'b' } },
      spec: {
        ports: [{ port: 80 }],
        tags: ['x'],
        selector: { a: 'b' },
        free: { nested: { deep: [1, 2] } },
      },
    };
    expect(setToFieldsV1Json(toFieldSet(type, object))).toBe(
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:a":{}},"f:name":{}},"f:spec":{"f:free":{"f:nested":{".":{},"f:deep":{}}},"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{}}},"f:selector":{},"f:tags":{"v:\\"x\\"":{}}}}',
    );
  });
});

describe('reconciling sets with schema changes', () => {
  it('turns items owned in a now-atomic list or map into ownership of the whole', () => {
    const set = fieldsV1JsonToSet(
      '{"f:spec":{"f:selector":{"f:matchLabels":{"f:app":{}}},"f:template":{"f:spec":{"f:tolerations":{"k:{\\"key\\":\\"k\\"}":{".":{},"f:key":{}}}}}}}',
    );
    const reconciled = reconcileFieldSetWithSchema(set, deploymentType);
    expect(reconciled && setToFieldsV1Json(reconciled)).toBe(
      '{"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:tolerations":{}}}}}',
    );
  });

  it('leaves sets that already match the schema alone', () => {
    expect(
      reconcileFieldSetWithSchema(toFieldSet(deploymentType, deployment), deploymentType),
    ).toBeUndefined();
  });
});
