// Kubernetes' name and label-value checks (k8s.io/apimachinery/pkg/util/validation): each returns
// the list of problems in Kubernetes' words, empty when the value is valid.
import { utf8Length } from './go-text.js';

const QUALIFIED_NAME_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FORMAT}$`);
const QUALIFIED_NAME_MESSAGE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const QUALIFIED_NAME_MAX_LENGTH = 63;

const LABEL_VALUE_FORMAT = `(${QUALIFIED_NAME_FORMAT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FORMAT}$`);
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;

const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FORMAT = `${DNS1123_LABEL_FORMAT}(\\.${DNS1123_LABEL_FORMAT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FORMAT}$`);
const DNS1123_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

export function maxLengthMessage(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexMessage(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const shown = examples.map((example) => `'${example}', `).join(' or ');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

const EMPTY_MESSAGE = 'must be non-empty';

export function isDns1123Subdomain(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    problems.push(maxLengthMessage(DNS1123_SUBDOMAIN_MAX_LENGTH));
  }
  if (!DNS1123_SUBDOMAIN.test(value)) {
    problems.push(regexMessage(DNS1123_SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN_FORMAT, 'example.com'));
  }
  return problems;
}

/** A label key or similar: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 characters. */
export function isQualifiedName(value: string): string[] {
  const problems: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexMessage(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') problems.push(`prefix part ${EMPTY_MESSAGE}`);
    else problems.push(...isDns1123Subdomain(prefix).map((problem) => `prefix part ${problem}`));
  }
  if (name === '') problems.push(`name part ${EMPTY_MESSAGE}`);
  else if (utf8Length(name) > QUALIFIED_NAME_MAX_LENGTH) {
    problems.push(`name part ${maxLengthMessage(QUALIFIED_NAME_MAX_LENGTH)}`);
  }
  if (!QUALIFIED_NAME.test(name)) {
    problems.push(
      `name part ${regexMessage(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return problems;
}

/** A label value: empty, or ≤ 63 alphanumerics, '-', '_', '.' starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > LABEL_VALUE_MAX_LENGTH) problems.push(maxLengthMessage(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE.test(value)) {
    problems.push(regexMessage(LABEL_VALUE_MESSAGE, LABEL_VALUE_FORMAT, 'MyValue', 'my_value', '12345'));
  }
  return problems;
}
