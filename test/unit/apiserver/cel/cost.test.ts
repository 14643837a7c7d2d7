// Static cost estimates of rules, checked against the figures of apiextensions-apiserver's
// TestCostEstimation (schema/cel/compilation_test.go): each schema once without bounds and once
// with maxItems/maxProperties/maxLength set.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../src/api/types/apiextensions-v1.generated.js';
import { estimateMaxCost } from '../../../../src/apiserver/cel/cost.js';
import { DeclTypeBuilder } from '../../../../src/apiserver/cel/decl-types.js';
import { newKubernetesEnvironment } from '../../../../src/apiserver/cel/environment.js';

type Generator = (max: number | undefined) => JSONSchemaProps;

function scalar(type: string): JSONSchemaProps {
  if (type === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  if (type === 'duration' || type === 'date' || type === 'date-time') return { type: 'string', format: type };
  return { type };
}

const array =
  (item: string): Generator =>
  (max) => ({ type: 'array', items: scalar(item), ...(max !== undefined && { maxItems: max }) });
const arrayOfArrays =
  (item: string): Generator =>
  (max) => ({
    type: 'array',
    items: { type: 'array', items: scalar(item) },
    ...(max !== undefined && { maxItems: max }),
  });
const objectArray: Generator = (max) => ({
  type: 'array',
  items: {
    type: 'object',
    properties: { required: { type: 'string' }, optional: { type: 'string' } },
    required: ['required'],
  },
  ...(max !== undefined && { maxItems: max }),
});
const mapArray =
  (value: string): Generator =>
  (max) => ({
    type: 'array',
    items: { type: 'object', additionalProperties: scalar(value) },
    ...(max !== undefined && { maxItems: max }),
  });
const map =
  (value: string): Generator =>
  (max) => ({
    type: 'object',
    additionalProperties: scalar(value),
    ...(max !== undefined && { maxProperties: max }),
  });
const string: Generator = (max) => ({ type: 'string', ...(max !== undefined && { maxLength: max }) });
const bytes: Generator = (max) => ({
  type: 'string',
  format: 'byte',
  ...(max !== undefined && { maxLength: max }),
});
const boundedStrings: Generator = (max) => ({
  type: 'array',
  items: { type: 'string', ...(max !== undefined && { maxLength: max }) },
  ...(max !== undefined && { maxItems: max }),
});
const stringObject =
  (...names: string[]): Generator =>
  (max) => ({
    type: 'object',
    properties: Object.fromEntries(
      names.map((n) => [n, { type: 'string', ...(max !== undefined && { maxLength: max }) }]),
    ),
  });

function cost(schema: JSONSchemaProps, rule: string): number {
  const type = new DeclTypeBuilder().build(schema, false, 'selfType');
  return estimateMaxCost(newKubernetesEnvironment().parse(rule).ast, type);
}

describe('static cost estimate', () => {
  // name, schema, rule, cost without bounds, bound, cost with it
  const cases: [string, Generator, string, number, number, number][] = [
    ['number array with all', array('number'), 'self.all(x, true)', 4718591, 10, 32],
    ['string array with all', array('string'), 'self.all(x, true)', 3145727, 20, 62],
    ['boolean array with all', array('boolean'), 'self.all(x, true)', 1887437, 5, 17],
    ['array of number arrays with all', arrayOfArrays('number'), 'self.all(x, true)', 3145727, 100, 302],
    ['array of objects with all', objectArray, 'self.all(x, true)', 555128, 50, 152],
    ['map of numbers with all', map('number'), 'self.all(x, true)', 1348169, 10, 32],
    ['map of strings with all', map('string'), 'self.all(x, true)', 1179647, 3, 11],
    ['map of booleans with all', map('boolean'), 'self.all(x, true)', 943718, 100, 302],
    ['string with contains', string, "self.contains('test')", 314574, 10, 5],
    ['string with startsWith', string, "self.startsWith('test')", 2, 15, 2],
    ['string with endsWith', string, "self.endsWith('test')", 2, 30, 2],
    ['concat string', string, 'size(self + "hello") > size("hello")', 314578, 4, 7],
    ['index of array with numbers', array('number'), 'self[1] == 0.0', 2, 5000, 2],
    ['index of array with strings', array('string'), 'self[1] == self[1]', 314577, 8, 314577],
    ['regex matches simple', string, 'self.matches("x")', 314574, 50, 22],
    ['regex matches empty string', string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
    ['regex matches empty regex', string, 'self.matches("")', 1, 100, 1],
    ['set array maxLength to zero', array('number'), 'self[3] == 0.0', 2, 0, 2],
    ['set map maxLength to zero', map('number'), 'self["x"] == 0.0', 2, 0, 2],
    ['set string maxLength to zero', string, 'self == "x"', 2, 0, 1],
    ['set bytes maxLength to zero', bytes, 'self == b"x"', 2, 0, 1],
    [
      'maxItems above the estimate',
      array('number'),
      'self.all(x, x == 0.0)',
      6291454,
      3 * 1024 * 2048,
      25165826,
    ],
    ['int-or-string array with all', array('int-or-string'), 'self.all(x, true)', 4718591, 10, 32],
    ['index of array with int-or-strings', array('int-or-string'), 'self[0] == 5', 3, 10, 3],
    ['index of array with booleans', array('boolean'), 'self[0] == false', 2, 25, 2],
    ['index of array of objects', objectArray, 'self[0] == null', 2, 422, 2],
    ['index of array of array of numbers', arrayOfArrays('number'), 'self[0][0] == -1.0', 3, 51, 3],
    ['array of number maps with all', mapArray('number'), 'self.all(x, x.y == 25.2)', 6291452, 12, 74],
    ['index of array of number maps', mapArray('number'), 'self[0].x > 2.0', 4, 3000, 4],
    ['duration array with all', array('duration'), 'self.all(x, true)', 2359295, 5, 17],
    ['index of duration array', array('duration'), 'self[0].getHours() == 2', 4, 525, 4],
    ['date array with all', array('date'), 'self.all(x, true)', 725936, 15, 47],
    ['date-time array with all', array('date-time'), 'self.all(x, true)', 428963, 25, 77],
    ['map of int-or-strings with all', map('int-or-string'), 'self.all(x, true)', 1348169, 15, 47],
    ['map of durations with all', map('duration'), 'self.all(x, true)', 1048577, 5, 17],
    ['map of dates with all', map('date'), 'self.all(x, true)', 524288, 10, 32],
    ['map of date-times with all', map('date-time'), 'self.all(x, true)', 349526, 25, 77],
    ['regex find', string, "self.find('[0-9]+') == ''", 629147, 10, 11],
    ['join', boundedStrings, "self.join(' ') == 'aa bb'", 329853068905, 10, 43],
    ['isSorted', boundedStrings, 'self.isSorted() == true', 329854432052, 10, 52],
    [
      'replace',
      stringObject('str', 'before', 'after'),
      "self.str.replace(self.before, self.after) == 'does not matter'",
      629152,
      10,
      14,
    ],
    ['split', stringObject('str', 'separator'), 'self.str.split(self.separator) == []', 629160, 10, 22],
    ['lowerAscii', string, "self.lowerAscii() == 'lower!'", 314575, 10, 6],
    ['size calls', map('integer'), 'oldSelf.size() == self.size()', 5, 10, 5],
    ['timestamp comparison', map('date-time'), 'self["a"] == self["b"]', 8, 7, 8],
    ['duration comparison', map('duration'), 'self["c"] == self["d"]', 8, 42, 8],
  ];
  it.each(cases)('%s', (_name, generate, rule, unbounded, bound, bounded) => {
    expect(cost(generate(undefined), rule)).toBe(unbounded);
    expect(cost(generate(bound), rule)).toBe(bounded);
  });

  it('grows with nested loops', () => {
    expect(cost(array('number')(10), 'self.all(x, self.all(y, true))')).toBe(352);
    expect(cost(array('number')(10), 'self.all(x, self.all(y, self.all(z, true)))')).toBe(3552);
    expect(cost(array('number')(undefined), 'self.all(x, self.all(y, true))')).toBeGreaterThan(10_000_000);
  });
});
