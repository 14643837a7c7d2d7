// Field selectors (k8s.io/apimachinery/pkg/fields): `metadata.name=x,status.phase!=Running`,
// with backslash escapes in values.
import { compareGoStrings } from './go-text.js';
import { SelectorError } from './selector-error.js';

export type FieldOperator = '=' | '!=';

/** One term of a field selector. `==` is read as `=`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/** Reads a field of an object; `undefined` (a missing field) compares as the empty string. */
export type FieldGetter = (field: string) => string | undefined;

/** Rewrites one term, e.g. to map a legacy field name; an empty field and value drop the term. */
export type FieldTransform = (field: string, value: string) => { field: string; value: string };

/** Escapes `\`, `,` and `=` in a value so it can be written into a field selector. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (char) => `\\${char}`);
}

/** Undoes {@link escapeFieldValue}; unescaped `,` or `=` and unknown escapes are errors, as in Kubernetes. */
export function unescapeFieldValue(text: string): string {
  if (!/[\\,=]/.test(text)) return text;
  let value = '';
  let escaped = false;
  for (const char of text) {
    if (escaped) {
      if (char !== '\\' && char !== ',' && char !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${char}`);
      }
      value += char;
      escaped = false;
    } else if (char === '\\') {
      escaped = true;
    } else if (char === ',' || char === '=') {
      // Go prints the offending rune as its number.
      throw new SelectorError(`invalid field selector: unescaped character in value: ${char.codePointAt(0)}`);
    } else {
      value += char;
    }
  }
  if (escaped) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return value;
}

/** Splits at commas that are not escaped; escapes stay in the terms. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (escaped) escaped = false;
    else if (char === '\\') escaped = true;
    else if (char === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** Splits a term at its first operator; the field part has no escaping. */
function splitTerm(
  term: string,
): { field: string; operator: (typeof TERM_OPERATORS)[number]; rest: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const operator of TERM_OPERATORS) {
      if (term.startsWith(operator, i))
        return { field: term.slice(0, i), operator, rest: term.slice(i + operator.length) };
    }
  }
  return undefined;
}

/** A field selector: the AND of its terms. The empty selector matches everything. */
export class FieldSelector {
  private static readonly EVERYTHING = new FieldSelector([], false);
  private static readonly NOTHING = new FieldSelector([], true);

  private readonly terms: readonly FieldRequirement[];
  /** True for the selector that selects nothing (Kubernetes' `fields.Nothing()`). */
  readonly selectsNothing: boolean;

  private constructor(terms: readonly FieldRequirement[], selectsNothing: boolean) {
    this.terms = terms;
    this.selectsNothing = selectsNothing;
  }

  static everything(): FieldSelector {
    return FieldSelector.EVERYTHING;
  }

  static nothing(): FieldSelector {
    return FieldSelector.NOTHING;
  }

  /** A selector of the given terms, kept in the order given. */
  static of(terms: readonly FieldRequirement[]): FieldSelector {
    return terms.length === 0 ? FieldSelector.EVERYTHING : new FieldSelector([...terms], false);
  }

  /** The terms, so a resource can check that it supports every field. */
  requirements(): readonly FieldRequirement[] {
    return this.terms;
  }

  matches(get: FieldGetter): boolean {
    if (this.selectsNothing) return false;
    return this.terms.every((term) => {
      const actual = get(term.field) ?? '';
      return term.operator === '=' ? actual === term.value : actual !== term.value;
    });
  }

  isEmpty(): boolean {
    return !this.selectsNothing && this.terms.length === 0;
  }

  /** The value the selector pins `field` to with `=`, if any (the first such term). */
  requiresExactMatch(field: string): string | undefined {
    return this.terms.find((term) => term.field === field && term.operator === '=')?.value;
  }

  /**
   * Applies `transform` to every term (Kubernetes' `Selector.Transform`); terms whose field and
   * value both become empty are dropped. Errors thrown by `transform` propagate.
   */
  transform(transform: FieldTransform): FieldSelector {
    if (this.selectsNothing) return this;
    const terms: FieldRequirement[] = [];
    for (const term of this.terms) {
      const { field, value } = transform(term.field, term.value);
      if (field !== '' || value !== '') terms.push({ field, operator: term.operator, value });
    }
    return FieldSelector.of(terms);
  }

  /** Canonical text: terms in parsed order, values escaped; `''` for everything and nothing. */
  toString(): string {
    return this.terms.map((term) => `${term.field}${term.operator}${escapeFieldValue(term.value)}`).join(',');
  }
}

/**
 * Parses a `fieldSelector` string. Terms are ordered by their text, as Kubernetes does; a term
 * with an empty field and value (`=`) is dropped. Throws a SelectorError with kube-apiserver's
 * message when invalid.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(compareGoStrings);
  const terms: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (split === undefined)
      throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeFieldValue(split.rest);
    if (split.field === '' && value === '') continue;
    terms.push({ field: split.field, operator: split.operator === '!=' ? '!=' : '=', value });
  }
  return FieldSelector.of(terms);
}

/** A selector requiring each field to equal its value, in the object's key order (`fields.SelectorFromSet`). */
export function fieldSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined | null,
): FieldSelector {
  if (set === undefined || set === null) return FieldSelector.everything();
  return FieldSelector.of(
    Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })),
  );
}
