import {
  aggregateMessages,
  fieldErrorMessage,
  fieldInvalid,
  fieldNotSupported,
  indexPath,
} from './field-errors.js';
import { compareGoStrings, goStringSlice } from './go-text.js';
import { isQualifiedName, isValidLabelValue } from './name-validation.js';
import { SelectorError } from './selector-error.js';

/** Label selector operators, spelled as k8s.io/apimachinery/pkg/selection spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

const BINARY_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const ALL_OPERATORS: readonly LabelOperator[] = [...BINARY_OPERATORS, 'exists', '!'];

/** The operator names a parser error lists after "expected:". */
export const BINARY_OPERATOR_LIST = BINARY_OPERATORS.join(', ');

/** Labels of an object; `undefined` means the object has none. */
export type Labels = Readonly<Record<string, string>> | undefined;

function hasLabel(labels: Labels, key: string): labels is Readonly<Record<string, string>> {
  return labels !== undefined && Object.hasOwn(labels, key);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits, within int64. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** One condition of a label selector: a key, an operator and its values. */
export class LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** The values in the order given (parsed selectors give them sorted and distinct). */
  readonly values: readonly string[];

  /** Builds without validation; use {@link newLabelRequirement} for input from users. */
  constructor(key: string, operator: LabelOperator, values: readonly string[]) {
    this.key = key;
    this.operator = operator;
    this.values = values;
  }

  matches(labels: Labels): boolean {
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return hasLabel(labels, this.key) && this.values.includes(labels[this.key]!);
      case 'notin':
      case '!=':
        return !hasLabel(labels, this.key) || !this.values.includes(labels[this.key]!);
      case 'exists':
        return hasLabel(labels, this.key);
      case '!':
        return !hasLabel(labels, this.key);
      case 'gt':
      case 'lt':
        return this.matchesNumber(labels);
    }
  }

  private matchesNumber(labels: Labels): boolean {
    if (!hasLabel(labels, this.key) || this.values.length !== 1) return false;
    const actual = parseInt64(labels[this.key]!);
    const limit = parseInt64(this.values[0]!);
    if (actual === undefined || limit === undefined) return false;
    return this.operator === 'gt' ? actual > limit : actual < limit;
  }

  /** Canonical text, e.g. `tier in (a,b)`, `!gpu`, `app=web`; set values print sorted. */
  toString(): string {
    switch (this.operator) {
      case 'exists':
        return this.key;
      case '!':
        return `!${this.key}`;
      case 'in':
        return `${this.key} in (${this.valuesText()})`;
      case 'notin':
        return `${this.key} notin (${this.valuesText()})`;
      case 'gt':
        return `${this.key}>${this.valuesText()}`;
      case 'lt':
        return `${this.key}<${this.valuesText()}`;
      default:
        return `${this.key}${this.operator}${this.valuesText()}`;
    }
  }

  private valuesText(): string {
    if (this.values.length === 1) return this.values[0]!;
    return [...this.values].sort(compareGoStrings).join(',');
  }
}

/** The problems Kubernetes finds with a requirement (`labels.NewRequirement`), as Go error texts. */
function requirementProblems(key: string, operator: string, values: readonly string[]): string[] {
  const problems: string[] = [];
  const keyProblems = isQualifiedName(key);
  if (keyProblems.length > 0)
    problems.push(fieldErrorMessage(fieldInvalid('key', key, keyProblems.join('; '))));
  const invalidValues = (detail: string) =>
    `values: Invalid value: ${goStringSlice(values, true)}: ${detail}`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        problems.push(invalidValues("for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        problems.push(invalidValues('exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        problems.push(invalidValues('values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        problems.push(invalidValues("for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      values.forEach((value, index) => {
        if (parseInt64(value) === undefined) {
          const detail = "for 'Gt', 'Lt' operators, the value must be an integer";
          problems.push(fieldErrorMessage(fieldInvalid(indexPath('values', index), value, detail)));
        }
      });
      break;
    default:
      problems.push(fieldErrorMessage(fieldNotSupported('operator', operator, ALL_OPERATORS)));
  }
  values.forEach((value, index) => {
    const valueProblems = isValidLabelValue(value);
    if (valueProblems.length > 0) {
      const field = indexPath(indexPath('values', index), key);
      problems.push(fieldErrorMessage(fieldInvalid(field, value, valueProblems.join('; '))));
    }
  });
  return problems;
}

/**
 * Builds a validated requirement, as `labels.NewRequirement` does; throws a {@link SelectorError}
 * with Kubernetes' message when the key, operator or values are not acceptable.
 */
export function newLabelRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
): LabelRequirement {
  const problems = requirementProblems(key, operator, values);
  if (problems.length > 0) throw new SelectorError(aggregateMessages(problems));
  return new LabelRequirement(key, operator, values);
}
