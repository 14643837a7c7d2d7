// Custom resource Table columns: JSONPath (fields, filters, indexes), cell types and the default Age.
import { describe, expect, it } from 'vitest';
import { customResourcePrinter } from '../../../src/apiserver/apiextensions/printer-columns.js';

const object = {
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 'one', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { replicas: 3.7, ratio: 2, enabled: true, tags: ['a', 'b'], nested: { deep: 'x' }, big: 1e21 },
  status: {
    conditions: [
      { type: 'Synced', status: 'False' },
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:01:00Z' },
    ],
  },
};

describe('printer columns', () => {
  it('evaluates JSONPath and types cells', () => {
    const printer = customResourcePrinter([
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
      { name: 'On', type: 'boolean', jsonPath: '.spec.enabled' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
      { name: 'First', type: 'string', jsonPath: '.spec.tags[0]' },
      { name: 'Nested', type: 'string', jsonPath: '.spec.nested' },
      { name: 'Big', type: 'string', jsonPath: '.spec.big' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.none' },
      { name: 'Wrong', type: 'integer', jsonPath: '.spec.enabled' },
      { name: 'Since', type: 'date', jsonPath: '.status.conditions[?(@.type=="Ready")].lastTransitionTime' },
    ]);
    expect(printer.columns.map((c) => c.name)).toEqual([
      'Name',
      'Replicas',
      'Ratio',
      'On',
      'Ready',
      'Tags',
      'First',
      'Nested',
      'Big',
      'Missing',
      'Wrong',
      'Since',
    ]);
    expect(printer.row(object, new Date('2026-01-01T00:11:00Z'))).toEqual([
      'one',
      3,
      2,
      true,
      'True',
      '["a","b"]',
      'a',
      '{"deep":"x"}',
      '1e+21',
      null,
      null,
      '10m',
    ]);
  });

  it('prints Name and Age when the version has no columns', () => {
    const printer = customResourcePrinter([]);
    expect(printer.columns.map(({ name, type, format }) => ({ name, type, format }))).toEqual([
      { name: 'Name', type: 'string', format: 'name' },
      { name: 'Age', type: 'date', format: '' },
    ]);
    expect(printer.row(object, new Date('2026-01-03T00:00:00Z'))).toEqual(['one', '2d']);
  });
});
