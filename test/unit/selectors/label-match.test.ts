import { describe, expect, it } from 'vitest';
import {
  labelSelectorFromSet,
  parseLabelSelector,
  validatedLabelSelectorFromSet,
} from '../../../src/api/selectors/index.js';
import { LABEL_VALUE_RULE } from './messages.js';

describe('LabelSelector.matches', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['', {}, true],
    ['', { a: 'b' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y', {}, false],
    ['x==y', { x: 'y' }, true],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=', {}, true],
    ['x!=', { x: '' }, false],
    ['x!=', { x: 'a' }, true],
    ['x!=y', {}, true],
    ['x!=y', { x: 'y' }, false],
    ['x!=y', { x: 'z' }, true],
    ['x', { x: '' }, true],
    ['x', { y: 'x' }, false],
    ['!x', {}, true],
    ['!x', { x: '' }, false],
    ['x in (a,b)', { x: 'a' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x in ()', { x: '' }, true],
    ['x in ()', {}, false],
    ['x in (,a)', { x: '' }, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', {}, true],
    ['x notin ()', { x: '' }, false],
    ['x notin ()', {}, true],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: '0' }, false],
    ['x>1', {}, false],
    ['x>1', { x: 'v2' }, false],
    ['x>1', { x: '-5' }, false],
    ['x<1', { x: '-5' }, true],
    ['x<1', { x: '+0' }, true],
    ['x>1', { x: '99999999999999999999' }, false],
    ['x>1', { x: ' 2' }, false],
    ['x>0', { x: '9223372036854775807' }, true],
    ['x<10', { x: '09' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x=y,z=w', { x: 'y' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['notin=in', { notin: 'in' }, true],
    ['x,!y', { x: '1' }, true],
    ['x,!y', { x: '1', y: '2' }, false],
    ['x=a,x=b', { x: 'a' }, false],
    ['x in (a,b),x notin (b)', { x: 'a' }, true],
    ['x in (a,b),x notin (b)', { x: 'b' }, false],
    ['app.kubernetes.io/name=web,tier in (fe,be)', { 'app.kubernetes.io/name': 'web', tier: 'be' }, true],
    ['App=web', { app: 'web' }, false],
  ])('%j on %j → %j', (selector, labels, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('treats an object without labels as having none', () => {
    expect(parseLabelSelector('!x,y notin (a)').matches(undefined)).toBe(true);
    expect(parseLabelSelector('x').matches(undefined)).toBe(false);
    expect(parseLabelSelector('').matches(undefined)).toBe(true);
  });

  it('looks at own labels only, not at properties inherited by objects', () => {
    expect(parseLabelSelector('constructor').matches({})).toBe(false);
    expect(parseLabelSelector('!toString').matches({})).toBe(true);
  });
});

describe('labelSelectorFromSet', () => {
  it('matches exactly the given labels, keys sorted', () => {
    const selector = labelSelectorFromSet({ tier: 'fe', app: 'web' });
    expect(selector.toString()).toBe('app=web,tier=fe');
    expect(selector.matches({ app: 'web', tier: 'fe', extra: 'x' })).toBe(true);
    expect(selector.matches({ app: 'web' })).toBe(false);
    expect(selector.requiresExactMatch('tier')).toBe('fe');
  });

  it('selects everything for an empty or missing set', () => {
    expect(labelSelectorFromSet({}).isEmpty()).toBe(true);
    expect(labelSelectorFromSet(undefined).isEmpty()).toBe(true);
    expect(labelSelectorFromSet(null).matches({ a: 'b' })).toBe(true);
  });

  it('does not validate, unlike validatedLabelSelectorFromSet', () => {
    expect(labelSelectorFromSet({ a: '-bad' }).toString()).toBe('a=-bad');
    expect(() => validatedLabelSelectorFromSet({ a: '-bad' })).toThrow(
      `values[0][a]: Invalid value: "-bad": ${LABEL_VALUE_RULE}`,
    );
    expect(validatedLabelSelectorFromSet({ b: '1', a: '' }).toString()).toBe('a=,b=1');
  });
});
