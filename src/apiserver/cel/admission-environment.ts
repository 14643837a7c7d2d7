// The CEL environment of admission expressions (k8s.io/apiserver/pkg/admission/plugin/cel:
// compile.go, composition.go): `object`, `oldObject`, `request`, `namespaceObject`, optionally
// `params` and `authorizer`, and `variables` (a policy's named expressions, evaluated lazily and
// at most once per evaluation). Values without a schema are dynamic, as upstream declares
// `object` and `oldObject` when it has no type for them.
import type { ASTNode, Environment, ParseResult } from '@marcbachmann/cel-js';
import { extendEnvironment, newKubernetesEnvironment } from './environment.js';
import { formatIssue } from './issues.js';
import { AUTHORIZER_TYPE, registerAuthz } from './library/authz.js';
import { invalidLiteral, nodesOf } from './literals.js';

/** Which optional variables an expression may read (OptionalVariableDeclarations). */
export interface AdmissionVariables {
  readonly hasParams: boolean;
  readonly hasAuthorizer: boolean;
}

/** What an expression must evaluate to; `any` accepts every type. */
export type AdmissionReturnType = 'bool' | 'string' | 'string-or-null' | 'any';

/** The variables every admission expression may read, `dyn` unless typed by the caller. */
export const ADMISSION_VARIABLES = [
  'object',
  'oldObject',
  'request',
  'namespaceObject',
  'variables',
] as const;

export type AdmissionCompileResult =
  | { readonly program: ParseResult; readonly error?: undefined }
  | { readonly program?: undefined; readonly error: string };

let base: Environment | undefined;
const environments = new Map<string, Environment>();

/** The Kubernetes environment with the authorizer library, for callers that declare their own variables. */
export function admissionBaseEnvironment(): Environment {
  if (base === undefined) {
    base = newKubernetesEnvironment();
    registerAuthz(base);
  }
  return base;
}

function environment(variables: AdmissionVariables): Environment {
  const key = `${variables.hasParams}/${variables.hasAuthorizer}`;
  let env = environments.get(key);
  if (env === undefined) {
    env = extendEnvironment(admissionBaseEnvironment());
    for (const name of ADMISSION_VARIABLES) env.registerVariable(name, 'dyn');
    if (variables.hasParams) env.registerVariable('params', 'dyn');
    if (variables.hasAuthorizer) env.registerVariable('authorizer', AUTHORIZER_TYPE);
    environments.set(key, env);
  }
  return env;
}

function returnTypeAccepts(expected: AdmissionReturnType, actual: string): boolean {
  // A dynamic result is checked when it is evaluated, as cel-go's dyn output does.
  if (expected === 'any' || actual === 'dyn') return true;
  if (expected === 'string-or-null') return actual === 'string' || actual === 'null';
  return actual === expected;
}

function returnTypeText(expected: AdmissionReturnType): string {
  return expected === 'string-or-null' ? 'one of [string null_type]' : expected;
}

/**
 * A read of `variables.<name>` that names no variable declared before the expression: composited
 * compilation types `variables` with one field per declared variable (and does not declare it at
 * all when a policy has none).
 */
function undeclaredVariable(
  ast: ASTNode,
  names: readonly string[] | null,
): { node: ASTNode; message: string } | undefined {
  for (const node of nodesOf(ast)) {
    if (node.op !== '.' && node.op !== '.?') continue;
    const [operand, field] = node.args as [ASTNode, string];
    if (operand.op !== 'id' || operand.args !== 'variables') continue;
    if (names === null)
      return { node: operand, message: "undeclared reference to 'variables' (in container '')" };
    if (!names.includes(field)) return { node, message: `undefined field '${field}'` };
  }
  return undefined;
}

/**
 * Compiles one admission expression, or returns upstream's error detail: `compilation failed:
 * ERROR: <input>:1:8: ...` or `must evaluate to bool`. With `variableNames`, reads of
 * `variables` are checked against the names declared so far (null: the policy declares none).
 */
export function compileAdmissionExpression(
  source: string,
  variables: AdmissionVariables,
  returnType: AdmissionReturnType,
  variableNames?: readonly string[] | null,
): AdmissionCompileResult {
  const env = environment(variables);
  let program: ParseResult;
  try {
    program = env.parse(source);
  } catch (error) {
    return { error: `compilation failed: ${formatIssue(error as Error, source)}` };
  }
  const checked = program.check();
  if (!checked.valid) return { error: `compilation failed: ${formatIssue(checked.error as Error, source)}` };
  const literal = invalidLiteral(program.ast);
  if (literal !== undefined) {
    const issue = formatIssue(
      { message: literal.message, summary: literal.message, node: literal.node },
      source,
    );
    return { error: `compilation failed: ${issue}` };
  }
  const unknown = variableNames === undefined ? undefined : undeclaredVariable(program.ast, variableNames);
  if (unknown !== undefined) {
    const issue = formatIssue(
      { message: unknown.message, summary: unknown.message, node: unknown.node },
      source,
    );
    return { error: `compilation failed: ${issue}` };
  }
  const type = String(checked.type);
  if (!returnTypeAccepts(returnType, type)) {
    return { error: `must evaluate to ${returnTypeText(returnType)}` };
  }
  return { program };
}

/**
 * The `variables` value: each named expression evaluated on first read and remembered, so
 * validations share one evaluation (upstream's lazy composition); one that fails raises its error
 * at every read. A plain Map whose reads are replaced, since the CEL library accepts only Maps.
 */
export function lazyVariables(
  names: readonly string[],
  evaluate: (name: string) => unknown,
): Map<string, unknown> {
  const map = new Map<string, unknown>(names.map((name) => [name, undefined]));
  const results = new Map<string, { value?: unknown; error?: unknown }>();
  const read = (name: string): unknown => {
    if (!Map.prototype.has.call(map, name)) return undefined;
    let result = results.get(name);
    if (result === undefined) {
      try {
        result = { value: evaluate(name) };
      } catch (error) {
        result = { error };
      }
      results.set(name, result);
    }
    if (result.error !== undefined) throw result.error;
    return result.value;
  };
  Object.defineProperty(map, 'get', { value: read });
  return map;
}
