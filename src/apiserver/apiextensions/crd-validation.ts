// apiextensions-apiserver's CustomResourceDefinition validation (pkg/apis/apiextensions/validation):
// names, group, scope, versions, subresources, printer columns, selectable fields, conversion,
// stored versions and API approval, with upstream's field paths and texts. Upstream validates the
// internal form, where per-version schemas, subresources and columns that are identical in every
// version sit at the top of the spec: the paths here follow that folding.
import type { KubeObject } from '../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoRendered,
  indexPath,
} from '../../api/selectors/field-errors.js';
import { goQuote } from '../../api/selectors/go-text.js';
import { compileSchemaValidations } from '../cel/index.js';
import { fieldsOf, isJsonObject, stringOf, stringsOf } from '../registry/validation/json.js';
import { isDns1035Label, isDns1123Subdomain, nameIsDnsSubdomain } from '../registry/validation/names.js';
import {
  validateImmutable,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../registry/validation/object-meta.js';
import { apiApprovalState, isProtectedCommunityGroup, KUBE_API_APPROVED_ANNOTATION } from './api-approval.js';
import { type CrdSpec, type CrdVersion, conditionTrue, crdSpec } from './crd-object.js';
import { foldedPerVersion } from './folding.js';
import { validateCrdSchema } from './schema/index.js';
import { selectableFieldErrors } from './selectable-fields.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** ValidateCustomResourceDefinition. */
export function validateCrd(crd: KubeObject): FieldError[] {
  const spec = crdSpec(crd);
  const errors = validateObjectMeta(crd.metadata, {
    namespaced: false,
    coreFinalizers: false,
    name: (name, prefix) => {
      const problems = nameIsDnsSubdomain(name, prefix);
      if (name !== `${spec.names.plural}.${spec.group}`)
        problems.push('must be spec.names.plural+"."+spec.group');
      return problems;
    },
  });
  errors.push(...validateSpec(spec, true, 'spec'));
  errors.push(...validateStatus(crd));
  errors.push(...validateApiApproval(crd, undefined));
  errors.push(...validatePreserveUnknownFields(crd, undefined));
  return errors;
}

/** ValidateCustomResourceDefinitionUpdate. */
export function validateCrdUpdate(crd: KubeObject, old: KubeObject): FieldError[] {
  const spec = crdSpec(crd);
  const oldSpec = crdSpec(old);
  const errors = validateObjectMetaUpdate(crd.metadata, old.metadata, 'metadata', false);
  errors.push(...validateSpec(spec, recognizedReviewVersionsRequired(old), 'spec'));
  if (conditionTrue(old, 'Established')) {
    errors.push(...validateImmutable(spec.raw.scope, oldSpec.raw.scope, 'spec.scope'));
    errors.push(...validateImmutable(spec.names.kind, oldSpec.names.kind, 'spec.names.kind'));
  }
  errors.push(...validateImmutable(spec.group, oldSpec.group, 'spec.group'));
  errors.push(...validateImmutable(spec.names.plural, oldSpec.names.plural, 'spec.names.plural'));
  errors.push(...validateStatus(crd));
  errors.push(...validateApiApproval(crd, old));
  errors.push(...validatePreserveUnknownFields(crd, old));
  return errors;
}

/** ValidateUpdateCustomResourceDefinitionStatus. */
export function validateCrdStatusUpdate(crd: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(crd.metadata, old.metadata, 'metadata', false);
  errors.push(...validateNames(fieldsOf(fieldsOf(crd.status).acceptedNames), 'status.acceptedNames'));
  return errors;
}

function recognizedReviewVersionsRequired(old: KubeObject): boolean {
  const webhook = fieldsOf(fieldsOf(fieldsOf(old.spec).conversion).webhook);
  const versions = stringsOf(webhook.conversionReviewVersions);
  return versions.length === 0 || versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v));
}

function validateSpec(spec: CrdSpec, requireRecognizedReviewVersion: boolean, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (spec.group === '') errors.push(fieldRequired(childPath(path, 'group'), ''));
  else {
    const problems = isDns1123Subdomain(spec.group);
    if (problems.length > 0)
      errors.push(fieldInvalid(childPath(path, 'group'), spec.group, problems.join(',')));
    else if (spec.group.split('.').length < 2)
      errors.push(
        fieldInvalid(childPath(path, 'group'), spec.group, 'should be a domain with at least one dot'),
      );
  }
  const scope = stringOf(spec.raw.scope);
  if (scope === '') errors.push(fieldRequired(childPath(path, 'scope'), ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced')
    errors.push(fieldNotSupported(childPath(path, 'scope'), scope, ['Cluster', 'Namespaced']));

  const folded = foldedPerVersion(spec.versions);
  const versionsPath = childPath(path, 'versions');
  if (!folded.schema) {
    spec.versions.forEach((version, i) => {
      if (!version.schema)
        errors.push(
          fieldRequired(`${indexPath(versionsPath, i)}.schema.openAPIV3Schema`, 'schemas are required'),
        );
    });
  } else if (!spec.versions[0]?.schema) {
    spec.versions.forEach((_, i) => {
      errors.push(
        fieldRequired(`${indexPath(versionsPath, i)}.schema.openAPIV3Schema`, 'schemas are required'),
      );
    });
  }
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  spec.versions.forEach((version, i) => {
    const versionPath = indexPath(versionsPath, i);
    if (version.storage) storageCount++;
    if (seen.has(version.name)) unique = false;
    seen.add(version.name);
    const problems = isDns1035Label(version.name);
    if (problems.length > 0)
      errors.push(fieldInvalid(childPath(versionPath, 'name'), version.name, problems.join(',')));
    errors.push(...validateDeprecationWarning(version, versionPath));
    if (!folded.schema && version.schema) errors.push(...validateSchema(version, versionPath, 'schema'));
    if (!folded.subresources)
      errors.push(...validateSubresources(version.subresources, childPath(versionPath, 'subresources')));
    if (!folded.columns) {
      version.columns.forEach((column, c) => {
        errors.push(
          ...validateColumn(column, indexPath(childPath(versionPath, 'additionalPrinterColumns'), c)),
        );
      });
    }
    errors.push(...selectableFieldErrors(version, childPath(versionPath, 'selectableFields')));
  });
  if (!unique)
    errors.push(
      fieldInvalid(versionsPath, versionsValue(spec.versions), 'must contain unique version names'),
    );
  if (storageCount !== 1) {
    errors.push(
      fieldInvalid(
        versionsPath,
        versionsValue(spec.versions),
        'must have exactly one version marked as storage version',
      ),
    );
  }
  errors.push(...validateNames(spec.rawNames, childPath(path, 'names'), true));
  const first = spec.versions[0];
  if (folded.schema && first?.schema) errors.push(...validateSchema(first, path, 'validation'));
  if (folded.subresources && first)
    errors.push(...validateSubresources(first.subresources, childPath(path, 'subresources')));
  if (folded.columns && first) {
    first.columns.forEach((column, c) => {
      errors.push(...validateColumn(column, indexPath(childPath(path, 'additionalPrinterColumns'), c)));
    });
  }
  errors.push(
    ...validateConversion(spec.raw.conversion, requireRecognizedReviewVersion, childPath(path, 'conversion')),
  );
  return errors;
}

/** A version list as Go prints the internal slice (the values apiextensions validation reports). */
function versionsValue(versions: readonly CrdVersion[]): GoRendered {
  const items = versions.map(
    (v) =>
      `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name)}, Served:${v.served}, Storage:${v.storage}, ...}`,
  );
  return new GoRendered(`[]apiextensions.CustomResourceDefinitionVersion{${items.join(', ')}}`);
}

function validateDeprecationWarning(version: CrdVersion, path: string): FieldError[] {
  const warning = version.raw.deprecationWarning;
  if (warning === undefined || warning === null) return [];
  const field = childPath(path, 'deprecationWarning');
  if (version.raw.deprecated !== true)
    return [fieldInvalid(field, warning, 'can only be set for deprecated versions')];
  const text = stringOf(warning);
  const errors: FieldError[] = [];
  if (text.length > 256) errors.push(fieldInvalid(field, text, 'must be <= 256 characters long'));
  if (text.length === 0) errors.push(fieldInvalid(field, text, 'must not be an empty string'));
  [...text].some((ch, i) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
    if (/[\u0000-\u001f\u007f-\u009f]/.test(ch)) {
      errors.push(
        fieldInvalid(
          field,
          text,
          `must only contain printable UTF-8 characters; control character found at index ${i}`,
        ),
      );
      return true;
    }
    return false;
  });
  return errors;
}

/** The schema checks (structural schema and CEL rules) of one version's or the folded schema. */
function validateSchema(version: CrdVersion, path: string, child: 'schema' | 'validation'): FieldError[] {
  const schemaPath = `${childPath(path, child)}.openAPIV3Schema`;
  const schema = version.schema!;
  const errors: FieldError[] = [];
  errors.push(...validateCrdSchema(schema, schemaPath));
  errors.push(...compileSchemaValidations(schema, schemaPath).errors);
  return errors;
}

/** ValidateCustomResourceDefinitionNames (`requiredNames`: spec's, where the four names are required). */
function validateNames(names: Record<string, unknown>, path: string, requiredNames = false): FieldError[] {
  const errors: FieldError[] = [];
  const plural = stringOf(names.plural);
  const singular = stringOf(names.singular);
  const kind = stringOf(names.kind);
  const listKind = stringOf(names.listKind);
  if (requiredNames) {
    if (plural === '') errors.push(fieldRequired(childPath(path, 'plural'), ''));
    if (singular === '') errors.push(fieldRequired(childPath(path, 'singular'), ''));
    if (kind === '') errors.push(fieldRequired(childPath(path, 'kind'), ''));
    if (listKind === '') errors.push(fieldRequired(childPath(path, 'listKind'), ''));
  }
  const label = (value: string, field: string, prefix = '') => {
    const problems = isDns1035Label(prefix === '' ? value : value.toLowerCase());
    if (value !== '' && problems.length > 0)
      errors.push(fieldInvalid(childPath(path, field), value, `${prefix}${problems.join(',')}`));
  };
  label(plural, 'plural');
  label(singular, 'singular');
  label(kind, 'kind', 'may have mixed case, but should otherwise match: ');
  label(listKind, 'listKind', 'may have mixed case, but should otherwise match: ');
  stringsOf(names.shortNames).forEach((shortName, i) => {
    const problems = isDns1035Label(shortName);
    if (problems.length > 0)
      errors.push(fieldInvalid(indexPath(childPath(path, 'shortNames'), i), shortName, problems.join(',')));
  });
  if (kind !== '' && kind === listKind)
    errors.push(fieldInvalid(childPath(path, 'listKind'), listKind, 'kind and listKind may not be the same'));
  stringsOf(names.categories).forEach((category, i) => {
    const problems = isDns1035Label(category);
    if (problems.length > 0)
      errors.push(fieldInvalid(indexPath(childPath(path, 'categories'), i), category, problems.join(',')));
  });
  return errors;
}

function validateStatus(crd: KubeObject): FieldError[] {
  const status = fieldsOf(crd.status);
  const errors = validateNames(fieldsOf(status.acceptedNames), 'status.acceptedNames');
  const stored = stringsOf(status.storedVersions);
  const path = 'status.storedVersions';
  if (stored.length === 0)
    return [
      ...errors,
      fieldInvalid(path, new GoRendered('[]string(nil)'), 'must have at least one stored version'),
    ];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const version of crdSpec(crd).versions) {
    if (version.storage && !remaining.has(version.name))
      errors.push(fieldInvalid(path, stored, `must have the storage version ${version.name}`));
    remaining.delete(version.name);
  }
  for (const [version, i] of remaining)
    errors.push(fieldInvalid(indexPath(path, i), version, 'must appear in spec.versions'));
  return errors;
}

/** ValidateCustomResourceDefinitionSubresources. */
function validateSubresources(subresources: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (!subresources || !isJsonObject(subresources.scale)) return [];
  const scale = subresources.scale;
  const errors: FieldError[] = [];
  const checkPath = (field: string, value: string, prefixes: string[], detail: string, required: boolean) => {
    const fieldPath = `${path}.scale.${field}`;
    if (value === '') {
      if (required) errors.push(fieldRequired(fieldPath, ''));
      return;
    }
    const problems = simpleJsonPathErrors(value, fieldPath);
    if (problems.length > 0) errors.push(...problems);
    else if (!prefixes.some((prefix) => value.startsWith(prefix)))
      errors.push(fieldInvalid(fieldPath, value, detail));
  };
  checkPath(
    'specReplicasPath',
    stringOf(scale.specReplicasPath),
    ['.spec.'],
    'should be a json path under .spec',
    true,
  );
  checkPath(
    'statusReplicasPath',
    stringOf(scale.statusReplicasPath),
    ['.status.'],
    'should be a json path under .status',
    true,
  );
  checkPath(
    'labelSelectorPath',
    stringOf(scale.labelSelectorPath),
    ['.spec.', '.status.'],
    'should be a json path under either .spec or .status',
    false,
  );
  return errors;
}

function simpleJsonPathErrors(value: string, path: string): FieldError[] {
  if (value.length === 0) return [fieldInvalid(path, value, 'must not be empty')];
  if (value[0] !== '.') return [fieldInvalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceColumnDefinition (the internal field is `JSONPath`). */
function validateColumn(column: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(column.name);
  const type = stringOf(column.type);
  const format = stringOf(column.format);
  const jsonPath = stringOf(column.jsonPath);
  if (name === '') errors.push(fieldRequired(childPath(path, 'name'), ''));
  const typeDetail = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (type === '') errors.push(fieldRequired(childPath(path, 'type'), typeDetail));
  else if (!PRINTER_COLUMN_TYPES.includes(type))
    errors.push(fieldInvalid(childPath(path, 'type'), type, typeDetail));
  if (format !== '' && !PRINTER_COLUMN_FORMATS.includes(format))
    errors.push(
      fieldInvalid(childPath(path, 'format'), format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`),
    );
  if (jsonPath === '') errors.push(fieldRequired(childPath(path, 'JSONPath'), ''));
  else errors.push(...simpleJsonPathErrors(jsonPath, childPath(path, 'JSONPath')));
  return errors;
}

/** validateCustomResourceConversion, on the internal form (webhookClientConfig, conversionReviewVersions). */
function validateConversion(value: unknown, requireRecognized: boolean, path: string): FieldError[] {
  if (!isJsonObject(value)) return [];
  const errors: FieldError[] = [];
  const strategy = stringOf(value.strategy);
  if (strategy === '') errors.push(fieldRequired(childPath(path, 'strategy'), ''));
  else if (strategy !== 'None' && strategy !== 'Webhook')
    errors.push(fieldNotSupported(childPath(path, 'strategy'), strategy, ['None', 'Webhook']));
  const webhook = isJsonObject(value.webhook) ? value.webhook : undefined;
  const clientConfig = webhook && isJsonObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions =
    webhook && webhook.conversionReviewVersions !== undefined
      ? stringsOf(webhook.conversionReviewVersions)
      : undefined;
  const configPath = childPath(path, 'webhookClientConfig');
  const versionsPath = childPath(path, 'conversionReviewVersions');
  if (strategy === 'Webhook') {
    if (!clientConfig) errors.push(fieldRequired(configPath, 'required when strategy is set to Webhook'));
    else if ((clientConfig.url === undefined) === (clientConfig.service === undefined))
      errors.push(fieldRequired(configPath, 'exactly one of url or service is required'));
    else if (clientConfig.service !== undefined) {
      const service = fieldsOf(clientConfig.service);
      if (stringOf(service.name) === '')
        errors.push(fieldRequired(`${configPath}.service.name`, 'service name is required'));
      if (stringOf(service.namespace) === '')
        errors.push(fieldRequired(`${configPath}.service.namespace`, 'service namespace is required'));
    }
    const versions = reviewVersions ?? [];
    if (versions.length === 0) errors.push(fieldRequired(versionsPath, ''));
    else {
      const seen = new Set<string>();
      let recognized = false;
      versions.forEach((version, i) => {
        if (seen.has(version)) {
          errors.push(fieldInvalid(indexPath(versionsPath, i), version, 'duplicate version'));
          return;
        }
        seen.add(version);
        for (const problem of isDns1035Label(version))
          errors.push(fieldInvalid(indexPath(versionsPath, i), version, problem));
        if (CONVERSION_REVIEW_VERSIONS.includes(version)) recognized = true;
      });
      if (requireRecognized && !recognized)
        errors.push(
          fieldInvalid(
            versionsPath,
            versions,
            `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`,
          ),
        );
    }
  } else {
    if (clientConfig)
      errors.push(fieldForbidden(configPath, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions && reviewVersions.length > 0)
      errors.push(fieldForbidden(versionsPath, 'should not be set when strategy is not set to Webhook'));
  }
  return errors;
}

/** validateAPIApproval: `*.k8s.io` and `*.kubernetes.io` groups need the approval annotation. */
function validateApiApproval(crd: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(crdSpec(crd).group)) return [];
  const next = apiApprovalState(crd.metadata?.annotations);
  if (old && apiApprovalState(old.metadata?.annotations).state === next.state) return [];
  const path = `metadata.annotations[${KUBE_API_APPROVED_ANNOTATION}]`;
  switch (next.state) {
    case 'Missing':
      return [fieldRequired(path, next.reason)];
    case 'Invalid':
      return [
        fieldInvalid(path, crd.metadata?.annotations?.[KUBE_API_APPROVED_ANNOTATION] ?? '', next.reason),
      ];
    default:
      return [];
  }
}

function validatePreserveUnknownFields(crd: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (old && fieldsOf(old.spec).preserveUnknownFields === true) return [];
  if (fieldsOf(crd.spec).preserveUnknownFields !== true) return [];
  return [
    fieldInvalid(
      'spec.preserveUnknownFields',
      true,
      'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ),
  ];
}
