// The name and value checks of k8s.io/apimachinery/pkg/util/validation that the selectors package
// does not carry, and the per-resource name functions (ValidateNameFunc). Each returns the problems
// in Kubernetes' words, empty when the value is valid.
import { utf8Length } from '../../../api/selectors/go-text.js';
import {
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  isDns1123Subdomain,
  maxLengthMessage,
  regexMessage,
} from '../../../api/selectors/name-validation.js';

export { isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../api/selectors/index.js';

const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FORMAT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL_FORMAT}(\\.${DNS1123_LABEL_FORMAT})*$`);
const DNS1123_LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;

export function isDns1123Label(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) problems.push(maxLengthMessage(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) problems.push('must not contain dots');
    else problems.push(regexMessage(DNS1123_LABEL_MESSAGE, DNS1123_LABEL_FORMAT, 'my-name', '123-abc'));
  }
  return problems;
}

const DNS1035_LABEL_FORMAT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FORMAT}$`);
const DNS1035_LABEL_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

export function isDns1035Label(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) problems.push(maxLengthMessage(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL.test(value)) {
    problems.push(regexMessage(DNS1035_LABEL_MESSAGE, DNS1035_LABEL_FORMAT, 'my-name', 'abc-123'));
  }
  return problems;
}

const WILDCARD_FORMAT = `\\*\\.${DNS1123_LABEL_FORMAT}(\\.${DNS1123_LABEL_FORMAT})*`;
const WILDCARD = new RegExp(`^${WILDCARD_FORMAT}$`);
const WILDCARD_MESSAGE =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

export function isWildcardDns1123Subdomain(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    problems.push(maxLengthMessage(DNS1123_SUBDOMAIN_MAX_LENGTH));
  }
  if (!WILDCARD.test(value)) problems.push(regexMessage(WILDCARD_MESSAGE, WILDCARD_FORMAT, '*.example.com'));
  return problems;
}

const C_IDENTIFIER_FORMAT = '[A-Za-z_][A-Za-z0-9_]*';
const C_IDENTIFIER = new RegExp(`^${C_IDENTIFIER_FORMAT}$`);

export function isCIdentifier(value: string): string[] {
  if (C_IDENTIFIER.test(value)) return [];
  return [
    regexMessage(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
      C_IDENTIFIER_FORMAT,
      'my_name',
      'MY_NAME',
      'MyName',
    ),
  ];
}

export function inclusiveRangeMessage(low: number, high: number): string {
  return `must be between ${low} and ${high}, inclusive`;
}

export function isValidPortNumber(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeMessage(1, 65535)];
}

export function isInRange(value: number, low: number, high: number): string[] {
  return value >= low && value <= high ? [] : [inclusiveRangeMessage(low, high)];
}

const MAX_INT32 = 2147483647;

export function isValidUserId(id: number): string[] {
  return isInRange(id, 0, MAX_INT32);
}

export const isValidGroupId = isValidUserId;

export function isValidPortName(port: string): string[] {
  const problems: string[] = [];
  if (utf8Length(port) > 15) problems.push(maxLengthMessage(15));
  if (!/^[-a-z0-9]+$/.test(port)) {
    problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  }
  if (!/[a-z]/.test(port)) problems.push('must contain at least one letter (a-z)');
  if (port.includes('--')) problems.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) {
    problems.push('must not begin or end with a hyphen');
  }
  return problems;
}

const PERCENT_FORMAT = '[0-9]+%';

export function isValidPercent(value: string): string[] {
  if (/^[0-9]+%$/.test(value)) return [];
  return [
    regexMessage(
      "a valid percent string must be a numeric string followed by an ending '%'",
      PERCENT_FORMAT,
      '1%',
      '93%',
    ),
  ];
}

const HTTP_HEADER_FORMAT = '[-A-Za-z0-9]+';

export function isHttpHeaderName(value: string): string[] {
  if (/^[-A-Za-z0-9]+$/.test(value)) return [];
  return [
    regexMessage(
      "a valid HTTP header must consist of alphanumeric characters or '-'",
      HTTP_HEADER_FORMAT,
      'X-Header-Name',
    ),
  ];
}

function chdirPrefixProblems(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const ENV_VAR_FORMAT = '[-._a-zA-Z][-._a-zA-Z0-9]*';

export function isEnvVarName(value: string): string[] {
  const problems: string[] = [];
  if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(value)) {
    problems.push(
      regexMessage(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_FORMAT,
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    );
  }
  problems.push(...chdirPrefixProblems(value));
  return problems;
}

/** The relaxed rule (RelaxedEnvironmentVariableValidation, on by default in 1.33). */
export function isRelaxedEnvVarName(value: string): string[] {
  const problems: string[] = [];
  if (value.length === 0) problems.push('environment variable name must be non-empty');
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code > 0x7e || code < 0x20 || char === '=') {
      problems.push(
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      );
      break;
    }
  }
  return problems;
}

const CONFIG_MAP_KEY_FORMAT = '[-._a-zA-Z0-9]+';

export function isConfigMapKey(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH)
    problems.push(maxLengthMessage(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!/^[-._a-zA-Z0-9]+$/.test(value)) {
    problems.push(
      regexMessage(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FORMAT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  problems.push(...chdirPrefixProblems(value));
  return problems;
}

/** A ValidateNameFunc: `prefix` says the value is a generateName prefix (a suffix will follow). */
export type NameValidator = (name: string, prefix: boolean) => string[];

// Kubernetes' maskTrailingDash drops the last two characters (not one) before adding 'a'; kept
// as it is so that the same prefixes pass.
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

export const nameIsDnsSubdomain: NameValidator = (name, prefix) =>
  isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDnsLabel: NameValidator = (name, prefix) =>
  isDns1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDns1035Label: NameValidator = (name, prefix) =>
  isDns1035Label(prefix ? maskTrailingDash(name) : name);

const PATH_SEGMENT_BAD = ['.', '..'];

/** path.IsValidPathSegmentName (RBAC and other names that only need to be URL path segments). */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  const problems: string[] = [];
  if (!prefix) {
    for (const bad of PATH_SEGMENT_BAD) if (name === bad) problems.push(`may not be '${bad}'`);
  }
  for (const illegal of ['/', '%']) {
    if (name.includes(illegal)) problems.push(`may not contain '${illegal}'`);
  }
  return problems;
};

/** Names that anything goes for (e.g. Event names get only the path-segment check). */
export const nameIsAnything: NameValidator = () => [];
