import { describe, expect, it } from 'vitest';
import { buildDefinitions } from '../../../scripts/build/openapi/build-definitions.js';
import { type ClientModel, loadClientModels } from '../../../scripts/build/openapi/client-models.js';
import { loadFacts, type OpenAPIFacts } from '../../../scripts/build/openapi/facts.js';
import { allDefinitions } from '../../../src/apiserver/openapi/definitions.js';

const CORE = 'io.k8s.api.core.v1';
const EVENTS = 'io.k8s.api.events.v1';

function model(
  name: string,
  properties: ClientModel['properties'],
  description?: string,
): [string, ClientModel] {
  return [name, { name, description, properties }];
}

function prop(jsonName: string, type: string, extra: Partial<ClientModel['properties'][number]> = {}) {
  return { jsonName, type, format: '', required: false, ...extra };
}

const KIND_PROPS = [prop('apiVersion', 'string'), prop('kind', 'string')];

function facts(overrides: Partial<OpenAPIFacts> = {}): OpenAPIFacts {
  return {
    packages: {
      [CORE]: { group: '', types: ['Event', 'EventSource', 'ObjectReference'] },
      [EVENTS]: { group: 'events.k8s.io', types: ['Event'] },
    },
    fieldExtensions: {},
    definitionExtensions: {},
    fieldRefs: {},
    notKinds: [`${CORE}.ObjectReference`],
    everyGroupVersion: [],
    ...overrides,
  };
}

const MODELS = new Map([
  model('CoreV1Event', [
    ...KIND_PROPS,
    prop('count', 'number', { format: 'int32', description: 'How often.' }),
    prop('firstTimestamp', 'Date', { format: 'date-time' }),
    prop('related', 'V1ObjectReference'),
    prop('source', 'V1EventSource', { required: true }),
    prop('sizes', '{ [key: string]: string; }'),
    prop('tags', 'Array<string>'),
  ]),
  model('EventsV1Event', KIND_PROPS, 'A newer event.'),
  model('V1EventSource', [prop('host', 'string')], 'EventSource says where an event came from.'),
  model('V1ObjectReference', KIND_PROPS, 'A reference.'),
]);

describe('buildDefinitions', () => {
  it('names models after Kubernetes definitions, telling groups apart where the client prefixes them', () => {
    const definitions = buildDefinitions(MODELS, facts());
    expect(Object.keys(definitions)).toEqual(
      expect.arrayContaining([
        `${CORE}.Event`,
        `${CORE}.EventSource`,
        `${CORE}.ObjectReference`,
        `${EVENTS}.Event`,
      ]),
    );
    expect(definitions[`${EVENTS}.Event`]?.description).toBe('A newer event.');
  });

  it('turns client types into Swagger schemas with refs, formats and required fields', () => {
    const event = buildDefinitions(
      MODELS,
      facts({
        fieldRefs: { [`${CORE}.Event`]: { sizes: 'io.k8s.apimachinery.pkg.api.resource.Quantity' } },
        fieldExtensions: { [`${CORE}.Event`]: { tags: { 'x-kubernetes-list-type': 'set' } } },
      }),
    )[`${CORE}.Event`]!;
    expect(event.properties).toMatchObject({
      count: { description: 'How often.', format: 'int32', type: 'integer' },
      firstTimestamp: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time' },
      sizes: {
        additionalProperties: { $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' },
      },
      tags: { items: { type: 'string' }, type: 'array', 'x-kubernetes-list-type': 'set' },
    });
    expect(event.required).toEqual(['source']);
    expect(event['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Event', version: 'v1' }]);
  });

  it("describes a bare $ref property with the referenced definition's description", () => {
    const event = buildDefinitions(MODELS, facts())[`${CORE}.Event`]!;
    expect(event.properties?.source).toEqual({
      $ref: `#/definitions/${CORE}.EventSource`,
      description: 'EventSource says where an event came from.',
    });
  });

  it('tags no GVK on references to objects', () => {
    const definitions = buildDefinitions(MODELS, facts());
    expect(definitions[`${CORE}.ObjectReference`]?.['x-kubernetes-group-version-kind']).toBeUndefined();
  });

  it('refuses models the facts do not place, and types it cannot express', () => {
    const extra = new Map([...MODELS, model('V1Unplaced', [])]);
    expect(() => buildDefinitions(extra, facts())).toThrow(/V1Unplaced/);
    const untyped = new Map([...MODELS, model('V1EventSource', [prop('blob', 'any')])]);
    expect(() => buildDefinitions(untyped, facts())).toThrow(/EventSource\.blob/);
  });
});

describe('builtin-definitions.generated.json', () => {
  it('is what scripts/build/openapi.ts generates from the installed client package and the facts', async () => {
    const { models } = await loadClientModels();
    expect(buildDefinitions(models, loadFacts())).toEqual(allDefinitions());
  });
});
