import { describe, expect, it } from 'vitest';
import {
  LabelRequirement,
  LabelSelector,
  parseLabelSelector,
  SelectorError,
} from '../../../src/api/selectors/index.js';
import {
  LABEL_VALUE_RULE,
  NAME_PART_RULE,
  OPERATORS,
  PREFIX_RULE,
  selectorErrorMessage,
  THREE_PARTS_RULE,
} from './messages.js';

const a = (n: number) => 'a'.repeat(n);

describe('parseLabelSelector: accepted input and canonical form', () => {
  it.each([
    ['', ''],
    ['x', 'x'],
    [' x ', 'x'],
    ['\rx', 'x'],
    ['!x', '!x'],
    ['! x', '!x'],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x = a', 'x=a'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x==', 'x=='],
    ['x!=', 'x!='],
    ['x>1', 'x>1'],
    ['x<7', 'x<7'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x in (a,b)', 'x in (a,b)'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x in ( a , b )', 'x in (a,b)'],
    ['x in (a)', 'x in (a)'],
    ['x in ()', 'x in ()'],
    ['x in ( )', 'x in ()'],
    ['x in (,)', 'x in ()'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in (b,a,b)', 'x in (a,b)'],
    ['x notin (a,b)', 'x notin (a,b)'],
    ['x notin ()', 'x notin ()'],
    ['x  notin\t(abc,def)', 'x notin (abc,def)'],
    ['x in (a)\n,y', 'x in (a),y'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    ['in=notin', 'in=notin'],
    ['notin in (in)', 'notin in (in)'],
    ['in', 'in'],
    ['!in', '!in'],
    ['z=1,a=2,m', 'a=2,m,z=1'],
    ['b=1,a=2,a=1', 'a=2,a=1,b=1'],
    ['x=a,y!=b,z in (h,i,j),w notin (k),!v,u,t>1,s<2', 's<2,t>1,u,!v,w notin (k),x=a,y!=b,z in (h,i,j)'],
    ['app.kubernetes.io/name=web', 'app.kubernetes.io/name=web'],
    ['example.com/key-with-dash in (so,what)', 'example.com/key-with-dash in (so,what)'],
    [
      '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)',
    ],
    ['A=B', 'A=B'],
    ['a_b=c_d', 'a_b=c_d'],
    ['x=A.B-c_9', 'x=A.B-c_9'],
    [a(63), a(63)],
    [`x=${a(63)}`, `x=${a(63)}`],
    [`${a(253)}/b`, `${a(253)}/b`],
  ])('%j → %j', (input, canonical) => {
    const selector = parseLabelSelector(input);
    expect(selector.toString()).toBe(canonical);
    // The canonical form parses back to itself.
    expect(parseLabelSelector(canonical).toString()).toBe(canonical);
  });

  it('gives requirements sorted by key, with set values sorted and distinct', () => {
    const selector = parseLabelSelector('tier notin (b,a,b),app=web,!canary,gpu');
    expect(selector.requirements.map((r) => [r.key, r.operator, r.values])).toEqual([
      ['app', '=', ['web']],
      ['canary', '!', []],
      ['gpu', 'exists', []],
      ['tier', 'notin', ['a', 'b']],
    ]);
  });

  it('reads the empty string as the selector of everything', () => {
    const selector = parseLabelSelector('');
    expect(selector.isEmpty()).toBe(true);
    expect(selector.requirements).toEqual([]);
    expect(selector.matches(undefined)).toBe(true);
  });
});

describe('parseLabelSelector: refused input and Kubernetes messages', () => {
  const requirement = (detail: string) => `unable to parse requirement: ${detail}`;
  const badKey = (key: string, detail: string) =>
    requirement(`<nil>: Invalid value: ${JSON.stringify(key)}: ${detail}`);
  const badValue = (field: string, value: string, detail = LABEL_VALUE_RULE) =>
    `${field}: Invalid value: ${JSON.stringify(value)}: ${detail}`;

  it.each([
    ['x=a||y=b', requirement(badValue('values[0][x]', 'a||y'))],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    [
      'x<a',
      requirement(badValue('values[0]', 'a', "for 'Gt', 'Lt' operators, the value must be an integer")),
    ],
    [
      'x>1.5',
      requirement(badValue('values[0]', '1.5', "for 'Gt', 'Lt' operators, the value must be an integer")),
    ],
    [
      'x>99999999999999999999',
      requirement(
        badValue(
          'values[0]',
          '99999999999999999999',
          "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
      ),
    ],
    ['x>-1', requirement(badValue('values[0][x]', '-1'))],
    ['x in (a,,)', requirement("found ')', expected: ',', or identifier")],
    ['x in (,,)', requirement("found ')', expected: ',', or identifier")],
    ['x in (a b)', requirement("found 'b', expected: ',' or ')'")],
    ['x in', requirement("found '' expected: '('")],
    ['x in a', requirement("found 'a' expected: '('")],
    ['x in (', requirement("found '', expected: ',', ')' or identifier")],
    ['x notin(', requirement("found '', expected: ',', ')' or identifier")],
    ['x in ((a))', requirement("found '(', expected: ',', ')' or identifier")],
    ['x in (a', requirement("found '', expected: ',' or ')'")],
    ['x in (a,', requirement("found '', expected: ',', or identifier")],
    ['x in (a)(', "found '(', expected: ',' or 'end of string'"],
    ['x=(a)', requirement("found '(', expected: identifier")],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    [')', "found ')', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['a (', requirement(`found '(', expected: ${OPERATORS}`)],
    ['x y', requirement(`found 'y', expected: ${OPERATORS}`)],
    ['x\ny', requirement(`found 'y', expected: ${OPERATORS}`)],
    ['x nott in (y)', requirement(`found 'nott', expected: ${OPERATORS}`)],
    ['x!', requirement(`found '!', expected: ${OPERATORS}`)],
    ['!', requirement("found '', expected: identifier")],
    ['!,', requirement("found ',', expected: identifier")],
    ['!!x', requirement("found '!', expected: identifier")],
    ['x=!', requirement("found '!', expected: identifier")],
    ['x<=1', requirement("found '=', expected: identifier")],
    ['x===a', requirement("found '=', expected: identifier")],
    ['_x', badKey('_x', NAME_PART_RULE)],
    ['x_', badKey('x_', NAME_PART_RULE)],
    ['é', badKey('é', NAME_PART_RULE)],
    ['A/b', badKey('A/b', PREFIX_RULE)],
    ['Example.com/a', badKey('Example.com/a', PREFIX_RULE)],
    ['a/b/c', badKey('a/b/c', THREE_PARTS_RULE)],
    ['/a', badKey('/a', 'prefix part must be non-empty')],
    ['a/', badKey('a/', `name part must be non-empty; ${NAME_PART_RULE}`)],
    [a(64), badKey(a(64), 'name part must be no more than 63 characters')],
    [`${a(254)}/b`, badKey(`${a(254)}/b`, 'prefix part must be no more than 253 characters')],
    // Go measures length in bytes: 32 two-byte characters are 64 bytes.
    [
      'é'.repeat(32),
      badKey('é'.repeat(32), `name part must be no more than 63 characters; ${NAME_PART_RULE}`),
    ],
    // Go quotes what is not printable.
    ['x\u00a0', requirement(`<nil>: Invalid value: "x\\u00a0": ${NAME_PART_RULE}`)],
    ['x\u0007=a', requirement(`<nil>: Invalid value: "x\\a": ${NAME_PART_RULE}`)],
    ['x=-a', requirement(badValue('values[0][x]', '-a'))],
    ['x=a_', requirement(badValue('values[0][x]', 'a_'))],
    ['x=é', requirement(badValue('values[0][x]', 'é'))],
    ['x="a"', requirement(badValue('values[0][x]', '"a"'))],
    [`x=${a(64)}`, requirement(badValue('values[0][x]', a(64), 'must be no more than 63 characters'))],
    [
      `x=${a(64)}_`,
      requirement(
        badValue('values[0][x]', `${a(64)}_`, `must be no more than 63 characters; ${LABEL_VALUE_RULE}`),
      ),
    ],
    [`x in (${a(64)})`, requirement(badValue('values[0][x]', a(64), 'must be no more than 63 characters'))],
    // Values are sorted before validation, so "-b" is values[0]; several problems print as a list.
    ['x=,y in (a,-b)', requirement(badValue('values[0][y]', '-b'))],
    ['x in (-a, b_)', requirement(`[${badValue('values[0][x]', '-a')}, ${badValue('values[1][x]', 'b_')}]`)],
  ])('%j', (input, message) => {
    expect(() => parseLabelSelector(input)).toThrow(SelectorError);
    expect(selectorErrorMessage(() => parseLabelSelector(input))).toBe(message);
  });
});

describe('LabelSelector', () => {
  it.each([
    ['x=a', 'x', 'a'],
    ['x==a', 'x', 'a'],
    ['x in (a)', 'x', 'a'],
    ['x in (a,b)', 'x', undefined],
    ['x!=a', 'x', undefined],
    ['x notin (a)', 'x', undefined],
    ['x', 'x', undefined],
    ['x=', 'x', ''],
    ['y=b,x=a', 'x', 'a'],
    ['x=a', 'y', undefined],
    // Only the first requirement on a key counts (requirements are sorted by key, stably).
    ['x,x=a', 'x', undefined],
    ['x=a,x', 'x', 'a'],
  ])('requiresExactMatch: %j pins %j to %j', (input, key, value) => {
    expect(parseLabelSelector(input).requiresExactMatch(key)).toBe(value);
  });

  it('tells empty selectors from the nothing selector', () => {
    expect(LabelSelector.everything().isEmpty()).toBe(true);
    expect(LabelSelector.everything().matches({ a: 'b' })).toBe(true);
    expect(LabelSelector.nothing().isEmpty()).toBe(false);
    expect(LabelSelector.nothing().selectsNothing).toBe(true);
    expect(LabelSelector.nothing().matches({ a: 'b' })).toBe(false);
    expect(LabelSelector.nothing().matches(undefined)).toBe(false);
    expect(LabelSelector.nothing().toString()).toBe('');
    expect(parseLabelSelector('a').isEmpty()).toBe(false);
  });

  it('adds requirements in key order and leaves the original alone', () => {
    const base = parseLabelSelector('m=1');
    const more = base.add(
      new LabelRequirement('a', 'exists', []),
      new LabelRequirement('z', 'in', ['y', 'x']),
    );
    expect(more.toString()).toBe('a,m=1,z in (x,y)');
    expect(base.toString()).toBe('m=1');
    expect(LabelSelector.nothing().add(new LabelRequirement('a', 'exists', [])).selectsNothing).toBe(true);
  });
});
