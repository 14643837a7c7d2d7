// Type checking of a policy's expressions against the kinds it matches (upstream's
// validatingadmissionpolicy typechecking.go): each validation's expression and messageExpression
// is compiled with `object` and `oldObject` typed by each matched kind's schema (and `params` by
// the paramKind's), and what fails to check becomes an expression warning in the policy's status.
// Rules with wildcards are skipped, as upstream gives them no types; at most ten kinds are checked.
import type { Environment } from '@marcbachmann/cel-js';
import type {
  ExpressionWarning,
  ValidatingAdmissionPolicy,
} from '../../../api/types/admissionregistration-v1.generated.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { ADMISSION_VARIABLES, admissionBaseEnvironment } from '../../cel/admission-environment.js';
import { celTypeName, type DeclType, DeclTypeBuilder } from '../../cel/decl-types.js';
import { extendEnvironment } from '../../cel/environment.js';
import { formatIssue } from '../../cel/issues.js';
import { AUTHORIZER_TYPE } from '../../cel/library/authz.js';
import { registerObjectTypes } from '../../cel/schema-environment.js';

const MAX_TYPES_TO_CHECK = 10;

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** What type checking reads: which kinds a resource serves, and each kind's schema. */
export interface TypeCheckSources {
  kindsFor(group: string, version: string, resource: string): readonly string[];
  schemaFor(gvk: GroupVersionKind): JSONSchemaProps | undefined;
}

/** Go's GroupVersionKind.String(). */
function gvkText(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

function compareGvk(a: GroupVersionKind, b: GroupVersionKind): number {
  return a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind);
}

/** The kinds a policy's resource rules name without wildcards (typesToCheck). */
function typesToCheck(policy: ValidatingAdmissionPolicy, sources: TypeCheckSources): GroupVersionKind[] {
  const found = new Map<string, GroupVersionKind>();
  const noWildcard = (values: readonly string[] | undefined) =>
    values !== undefined && values.length > 0 && !values.some((value) => value.includes('*'));
  for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
    if (!noWildcard(rule.apiGroups) || !noWildcard(rule.apiVersions) || !noWildcard(rule.resources)) continue;
    for (const group of [...rule.apiGroups!].sort())
      for (const version of [...rule.apiVersions!].sort())
        for (const resource of [...rule.resources!].sort()) {
          if (resource.includes('/')) continue;
          for (const kind of sources.kindsFor(group, version, resource)) {
            found.set(`${group}/${version}/${kind}`, { group, version, kind });
            if (found.size === MAX_TYPES_TO_CHECK) return [...found.values()].sort(compareGvk);
          }
        }
  }
  return [...found.values()].sort(compareGvk);
}

let typeCounter = 0;

function declType(schema: JSONSchemaProps | undefined, kind: string): DeclType | undefined {
  if (schema === undefined) return undefined;
  return new DeclTypeBuilder().build(schema, true, `${kind}${++typeCounter}`);
}

function environmentFor(object: DeclType, params: DeclType | undefined, hasParams: boolean): Environment {
  const env = extendEnvironment(admissionBaseEnvironment());
  registerObjectTypes(env, object);
  if (params !== undefined) registerObjectTypes(env, params);
  const objectType = celTypeName(object);
  for (const name of ADMISSION_VARIABLES)
    env.registerVariable(name, name === 'object' || name === 'oldObject' ? objectType : 'dyn');
  if (hasParams) env.registerVariable('params', params === undefined ? 'dyn' : celTypeName(params));
  env.registerVariable('authorizer', AUTHORIZER_TYPE);
  return env;
}

/** The checking error of `source` in `env`, as cel-go's Issues print it, or undefined. */
function checkIssue(env: Environment, source: string): string | undefined {
  try {
    const checked = env.parse(source).check();
    return checked.valid ? undefined : formatIssue(checked.error as Error, source);
  } catch (error) {
    return formatIssue(error as Error, source);
  }
}

/** The expression warnings of `policy` (empty when every expression checks for every kind). */
export function typeCheckPolicy(
  policy: ValidatingAdmissionPolicy,
  sources: TypeCheckSources,
): ExpressionWarning[] {
  const kinds = typesToCheck(policy, sources)
    .map((gvk) => ({ gvk, type: declType(sources.schemaFor(gvk), gvk.kind) }))
    .filter((entry): entry is { gvk: GroupVersionKind; type: DeclType } => entry.type !== undefined);
  if (kinds.length === 0) return [];
  const paramKind = policy.spec?.paramKind;
  const hasParams = paramKind !== undefined && paramKind !== null;
  let paramsType: DeclType | undefined;
  if (hasParams) {
    const apiVersion = paramKind.apiVersion ?? '';
    const slash = apiVersion.indexOf('/');
    const gvk = {
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
      kind: paramKind.kind ?? '',
    };
    paramsType = declType(sources.schemaFor(gvk), gvk.kind);
  }
  const environments = kinds.map(({ gvk, type }) => ({
    gvk,
    env: environmentFor(type, paramsType, hasParams),
  }));
  const check = (source: string): string | undefined => {
    const messages: string[] = [];
    for (const { gvk, env } of environments) {
      const issue = checkIssue(env, source);
      if (issue !== undefined) messages.push(`${gvkText(gvk)}: ${issue}\n`);
    }
    return messages.length === 0 ? undefined : messages.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  (policy.spec?.validations ?? []).forEach((validation, index) => {
    const expression = check(validation.expression ?? '');
    if (expression !== undefined)
      warnings.push({ fieldRef: `spec.validations[${index}].expression`, warning: expression });
    if (!validation.messageExpression) return;
    const message = check(validation.messageExpression);
    if (message !== undefined)
      warnings.push({ fieldRef: `spec.validations[${index}].messageExpression`, warning: message });
  });
  return warnings;
}
