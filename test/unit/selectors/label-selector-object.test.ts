import { describe, expect, it } from 'vitest';
import {
  fieldErrorMessage,
  type LabelSelectorObject,
  labelSelectorFromObject,
  SelectorError,
  validateLabelSelectorObject,
} from '../../../src/api/selectors/index.js';
import { LABEL_VALUE_RULE, NAME_PART_RULE, selectorErrorMessage } from './messages.js';

describe('labelSelectorFromObject (metav1.LabelSelectorAsSelector)', () => {
  it.each<[string, LabelSelectorObject | null | undefined, string, boolean, boolean]>([
    // name, selector, canonical string, isEmpty, matches {a: x, b: y}
    ['null selects nothing', null, '', false, false],
    ['undefined selects nothing', undefined, '', false, false],
    ['{} selects everything', {}, '', true, true],
    ['empty matchLabels', { matchLabels: {} }, '', true, true],
    ['empty matchExpressions', { matchExpressions: [] }, '', true, true],
    ['null fields', { matchLabels: null, matchExpressions: null }, '', true, true],
    ['matchLabels sorted by key', { matchLabels: { b: 'y', a: 'x' } }, 'a=x,b=y', false, true],
    [
      'labels and expressions together, values kept as given',
      {
        matchLabels: { z: '1' },
        matchExpressions: [
          { key: 'b', operator: 'In', values: ['y', 'x', 'y'] },
          { key: 'a', operator: 'DoesNotExist' },
        ],
      },
      '!a,b in (x,y,y),z=1',
      false,
      false,
    ],
    [
      'NotIn and Exists',
      {
        matchExpressions: [
          { key: 'a', operator: 'NotIn', values: ['q'] },
          { key: 'b', operator: 'Exists' },
        ],
      },
      'a notin (q),b',
      false,
      true,
    ],
    [
      'requirements on one key keep their order',
      { matchLabels: { a: 'x' }, matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] },
      'a=x,a notin (x)',
      false,
      false,
    ],
  ])('%s', (_name, object, canonical, empty, matches) => {
    const selector = labelSelectorFromObject(object);
    expect(selector.toString()).toBe(canonical);
    expect(selector.isEmpty()).toBe(empty);
    expect(selector.matches({ a: 'x', b: 'y' })).toBe(matches);
  });

  it('pins a key given in matchLabels or by In with one value', () => {
    const selector = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe'] }],
    });
    expect(selector.requiresExactMatch('app')).toBe('web');
    expect(selector.requiresExactMatch('tier')).toBe('fe');
  });

  const badKey = `key: Invalid value: "-a": ${NAME_PART_RULE}`;
  const badValue = (index: number, key: string, value: string) =>
    `values[${index}][${key}]: Invalid value: ${JSON.stringify(value)}: ${LABEL_VALUE_RULE}`;
  it.each<[string, LabelSelectorObject, string]>([
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'NotIn with values missing',
      { matchExpressions: [{ key: 'a', operator: 'NotIn' }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    [
      'DoesNotExist with values',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x', 'y'] }] },
      'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist',
    ],
    [
      'operators are case-sensitive',
      { matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] },
      '"in" is not a valid label selector operator',
    ],
    [
      'Gt is not an object operator',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      '"Gt" is not a valid label selector operator',
    ],
    [
      'empty operator',
      { matchExpressions: [{ key: 'a', operator: '', values: ['x'] }] },
      '"" is not a valid label selector operator',
    ],
    [
      'the first failing expression is reported',
      {
        matchExpressions: [
          { key: 'a', operator: 'Bogus', values: [] },
          { key: '-b', operator: 'In' },
        ],
      },
      '"Bogus" is not a valid label selector operator',
    ],
    [
      'empty key',
      { matchExpressions: [{ key: '', operator: 'Exists' }] },
      `key: Invalid value: "": name part must be non-empty; ${NAME_PART_RULE}`,
    ],
    [
      'several problems in one requirement',
      { matchExpressions: [{ key: '-a', operator: 'In', values: ['-x', 'y_', ''] }] },
      `[${badKey}, ${badValue(0, '-a', '-x')}, ${badValue(1, '-a', 'y_')}]`,
    ],
    [
      'repeated values are reported per index',
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['-x', '-x'] }] },
      `[${badValue(0, 'a', '-x')}, ${badValue(1, 'a', '-x')}]`,
    ],
    ['bad matchLabels key', { matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${NAME_PART_RULE}`],
    ['bad matchLabels value', { matchLabels: { a: '-c' } }, badValue(0, 'a', '-c')],
  ])('refuses %s', (_name, object, message) => {
    expect(() => labelSelectorFromObject(object)).toThrow(SelectorError);
    expect(selectorErrorMessage(() => labelSelectorFromObject(object))).toBe(message);
  });
});

describe('validateLabelSelectorObject (ValidateLabelSelector)', () => {
  const path = 'spec.selector';

  it.each<[string, LabelSelectorObject | null | undefined]>([
    ['null', null],
    ['undefined', undefined],
    ['empty', {}],
    ['labels', { matchLabels: { 'app.kubernetes.io/name': 'web', a: '' } }],
    [
      'every operator',
      {
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['x'] },
          { key: 'b', operator: 'NotIn', values: ['x', ''] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist', values: [] },
        ],
      },
    ],
  ])('accepts %s', (_name, selector) => {
    expect(validateLabelSelectorObject(selector, path)).toEqual([]);
  });

  it('reports a missing In value list as Required', () => {
    expect(
      validateLabelSelectorObject({ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }, path),
    ).toEqual([
      {
        type: 'FieldValueRequired',
        field: 'spec.selector.matchExpressions[0].values',
        badValue: '',
        detail: "must be specified when `operator` is 'In' or 'NotIn'",
      },
    ]);
  });

  it('reports values with Exists as Forbidden', () => {
    const errors = validateLabelSelectorObject(
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x', 'y'] }] },
      path,
    );
    expect(errors.map(fieldErrorMessage)).toEqual([
      "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    expect(errors[0]!.type).toBe('FieldValueForbidden');
  });

  it('reports an unknown operator as Invalid, unless unknown operators are allowed', () => {
    const selector = { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] };
    expect(validateLabelSelectorObject(selector, path)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.selector.matchExpressions[0].operator',
        badValue: 'Gt',
        detail: 'not a valid selector operator',
      },
    ]);
    expect(validateLabelSelectorObject(selector, path, { allowUnknownOperatorInRequirement: true })).toEqual(
      [],
    );
  });

  it('reports each problem of a key separately', () => {
    expect(
      validateLabelSelectorObject({ matchExpressions: [{ key: '', operator: 'Exists' }] }, path).map(
        fieldErrorMessage,
      ),
    ).toEqual([
      'spec.selector.matchExpressions[0].key: Invalid value: "": name part must be non-empty',
      `spec.selector.matchExpressions[0].key: Invalid value: "": ${NAME_PART_RULE}`,
    ]);
  });

  it('reports bad values by index, unless invalid values are allowed', () => {
    const selector = { matchExpressions: [{ key: '-a', operator: 'In', values: ['-x', 'y_', ''] }] };
    expect(validateLabelSelectorObject(selector, path).map(fieldErrorMessage)).toEqual([
      `spec.selector.matchExpressions[0].key: Invalid value: "-a": ${NAME_PART_RULE}`,
      `spec.selector.matchExpressions[0].values[0]: Invalid value: "-x": ${LABEL_VALUE_RULE}`,
      `spec.selector.matchExpressions[0].values[1]: Invalid value: "y_": ${LABEL_VALUE_RULE}`,
    ]);
    expect(
      validateLabelSelectorObject(selector, path, { allowInvalidLabelValueInSelector: true }).map(
        fieldErrorMessage,
      ),
    ).toEqual([`spec.selector.matchExpressions[0].key: Invalid value: "-a": ${NAME_PART_RULE}`]);
  });

  it('reports matchLabels problems at the matchLabels field, with the bad key or value', () => {
    expect(validateLabelSelectorObject({ matchLabels: { 'a b': 'c', d: '-e' } }, path)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.selector.matchLabels',
        badValue: 'a b',
        detail: NAME_PART_RULE,
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.selector.matchLabels',
        badValue: '-e',
        detail: LABEL_VALUE_RULE,
      },
    ]);
  });

  it('reports problems of every expression, in order', () => {
    const errors = validateLabelSelectorObject(
      {
        matchExpressions: [
          { key: 'a', operator: 'Bogus', values: [] },
          { key: '-b', operator: 'In' },
        ],
      },
      path,
    );
    expect(errors.map(fieldErrorMessage)).toEqual([
      'spec.selector.matchExpressions[0].operator: Invalid value: "Bogus": not a valid selector operator',
      "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      `spec.selector.matchExpressions[1].key: Invalid value: "-b": ${NAME_PART_RULE}`,
    ]);
  });

  it('treats a missing key or operator in decoded JSON as empty', () => {
    const decoded = JSON.parse('{"matchExpressions":[{}]}') as LabelSelectorObject;
    expect(validateLabelSelectorObject(decoded, 'selector').map((error) => error.field)).toEqual([
      'selector.matchExpressions[0].operator',
      'selector.matchExpressions[0].key',
      'selector.matchExpressions[0].key',
    ]);
    expect(() => labelSelectorFromObject(decoded)).toThrow('"" is not a valid label selector operator');
  });
});
