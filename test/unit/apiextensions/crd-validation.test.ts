// CustomResourceDefinition validation: upstream's paths (folded per-version fields) and texts.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { fieldErrorMessage } from '../../../src/api/selectors/field-errors.js';
import { validateCrd, validateCrdUpdate } from '../../../src/apiserver/apiextensions/crd-validation.js';

function crd(
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = { storedVersions: ['v1'] },
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
      conversion: { strategy: 'None' },
      ...spec,
    },
    status,
  };
}

const messages = (object: KubeObject) => validateCrd(object).map(fieldErrorMessage);

describe('CRD validation', () => {
  it('accepts a well-formed CRD', () => {
    expect(messages(crd())).toEqual([]);
  });

  it('checks names', () => {
    expect(
      messages(
        crd({
          names: {
            plural: 'Things',
            singular: 'thing',
            kind: 'Thing',
            listKind: 'ThingList',
            categories: ['a_b'],
          },
        }),
      ),
    ).toEqual([
      'metadata.name: Invalid value: "things.example.com": must be spec.names.plural+"."+spec.group',
      "spec.names.plural: Invalid value: \"Things\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.names.categories[0]: Invalid value: \"a_b\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('reports identical per-version fields at the top of the spec, differing ones per version', () => {
    const nullable = { openAPIV3Schema: { type: 'object', nullable: true } };
    const same = crd({
      versions: [
        { name: 'v1', served: true, storage: true, schema: nullable },
        { name: 'v2', served: true, storage: false, schema: nullable },
      ],
    });
    expect(messages(same)).toEqual([
      'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    ]);
    const differing = crd({
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        { name: 'v2', served: true, storage: false, schema: nullable },
      ],
    });
    expect(messages(differing)).toEqual([
      'spec.versions[1].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    ]);
  });

  it('checks scale paths, printer columns and selectable fields', () => {
    const object = crd({
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'number' },
                    tags: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
            },
          },
          subresources: { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '' } },
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', format: 'huge', jsonPath: '.spec.size' },
          ],
          selectableFields: [{ jsonPath: '.spec.size' }, { jsonPath: '.spec.missing' }, { jsonPath: '' }],
        },
      ],
    });
    expect(messages(object)).toEqual([
      'spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.size": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field',
      'spec.versions[0].selectableFields[2].jsonPath: Required value',
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
      'spec.additionalPrinterColumns[0].format: Invalid value: "huge": must be one of byte,date,date-time,double,float,int32,int64,password',
    ]);
  });

  it('checks conversion settings', () => {
    expect(messages(crd({ conversion: { strategy: 'Webhook' } }))).toEqual([
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
    ]);
    expect(
      messages(crd({ conversion: { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } } })),
    ).toEqual([
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
    expect(
      messages(
        crd({
          conversion: {
            strategy: 'Webhook',
            webhook: { clientConfig: { url: 'https://hook.example.com' }, conversionReviewVersions: ['v2'] },
          },
        }),
      ),
    ).toEqual([
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ]);
  });

  it('checks stored versions and immutable fields', () => {
    expect(messages(crd({}, { storedVersions: ['v0'] }))).toEqual([
      'status.storedVersions: Invalid value: []string{"v0"}: must have the storage version v1',
      'status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions',
    ]);
    const old = crd();
    old.metadata = { ...old.metadata, resourceVersion: '5' };
    old.status = { storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] };
    const next = crd({ scope: 'Cluster', group: 'other.com' });
    next.metadata = { ...next.metadata, resourceVersion: '5' };
    expect(validateCrdUpdate(next, old).map(fieldErrorMessage)).toEqual(
      expect.arrayContaining([
        'spec.scope: Invalid value: "Cluster": field is immutable',
        'spec.group: Invalid value: "other.com": field is immutable',
      ]),
    );
  });
});
