// Kubernetes' named formats (k8s.io/apiserver/pkg/cel/library/format.go, 1.31+): format.named(),
// format.<name>() and <format>.validate(), which gives the problems of a value in Kubernetes'
// words, or none.
import type { Environment } from '@marcbachmann/cel-js';
import { Optional } from '@marcbachmann/cel-js';
import {
  isQualifiedName,
  isValidLabelValue,
  nameIsDns1035Label,
  nameIsDnsLabel,
  nameIsDnsSubdomain,
} from '../../registry/validation/names.js';
import { parseRequestURI } from './urls.js';

/** A named format as a CEL value (`kubernetes.NamedFormat`). */
export class CelFormat {
  constructor(
    readonly name: string,
    readonly validate: (value: string) => string[],
  ) {}
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function problem(ok: boolean, text: string): string[] {
  return ok ? [] : [text];
}

const FORMATS: Readonly<Record<string, (value: string) => string[]>> = {
  dns1123Label: (v) => nameIsDnsLabel(v, false),
  dns1123Subdomain: (v) => nameIsDnsSubdomain(v, false),
  dns1035Label: (v) => nameIsDns1035Label(v, false),
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (v) => nameIsDnsLabel(v, true),
  dns1123SubdomainPrefix: (v) => nameIsDnsSubdomain(v, true),
  dns1035LabelPrefix: (v) => nameIsDns1035Label(v, true),
  labelValue: isValidLabelValue,
  uri: (v) =>
    problem(parseRequestURI(v) !== undefined, `parse ${JSON.stringify(v)}: invalid URI for request`),
  uuid: (v) => problem(UUID.test(v), 'does not match the UUID format'),
  byte: (v) => problem(BASE64.test(v), 'invalid base64'),
  date: (v) => problem(validDate(v), 'invalid date'),
  datetime: (v) => problem(DATE_TIME.test(v) && validDate(v.slice(0, 10)), 'invalid datetime'),
};

/** The `format` namespace of `format.named(...)` and `format.dns1123Label()`. */
class FormatNamespace {}

export function registerFormat(env: Environment): void {
  const T = 'kubernetes.NamedFormat';
  env.registerType(T, CelFormat);
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, validate] of Object.entries(FORMATS)) {
    const format = new CelFormat(name, validate);
    env.registerFunction(`FormatNamespace.${name}(): ${T}`, () => format);
  }
  env.registerFunction(
    `FormatNamespace.named(string): optional<${T}>`,
    (_ns: FormatNamespace, name: string) => {
      const validate = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
      return validate === undefined ? Optional.none() : Optional.of(new CelFormat(name, validate));
    },
  );
  env.registerFunction(
    `${T}.validate(string): optional<list<string>>`,
    (format: CelFormat, value: string) => {
      const problems = format.validate(value);
      return problems.length === 0 ? Optional.none() : Optional.of(problems);
    },
  );
}
