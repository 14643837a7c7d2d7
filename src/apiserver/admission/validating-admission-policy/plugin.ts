// The ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver/pkg/admission/plugin/policy/
// validating: plugin.go, dispatcher.go): for each request, every binding whose policy's match
// constraints and own match resources select it is evaluated once per param, and its failures are
// acted on as the binding's validationActions say: Deny refuses the request with the first
// failure (Status reason from the validation, Invalid by default), Warn adds a Warning header,
// Audit would annotate the audit event (tkube keeps no audit log, so Audit and auditAnnotations
// are evaluated and their results dropped). Configuration errors (a missing paramKind resource,
// a missing param under `parameterNotFoundAction: Deny`) follow the policy's failurePolicy.
import type { ValidatingAdmissionPolicyBinding } from '../../../api/types/admissionregistration-v1.generated.js';
import { type AuthorizeFunction, CelAuthorizer } from '../../cel/library/authz.js';
import { forbidden, StatusError, type StatusReason } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import { displayName } from '../plugins/lookup.js';
import type { CompiledPolicy } from './compile.js';
import { evaluatePolicy, type PolicyDecision } from './evaluate.js';
import { type MatchRequest, matchesResources, matchesRules, matchRequestOf } from './matching.js';
import { collectParams, type ParamSource, paramKindNotFound } from './params.js';
import type { PolicyCache } from './policy-cache.js';
import { admissionRequest, namespaceVariable } from './request-variables.js';

export interface ValidatingAdmissionPolicyOptions {
  readonly policies: PolicyCache;
  readonly namespaces: ObjectLister;
  readonly params: ParamSource;
  /** Other served versions of a group's resource, for matchPolicy Equivalent. */
  readonly equivalentVersions?: (group: string, resource: string) => readonly string[];
  /** Answers `authorizer` checks in expressions. */
  readonly authorize?: AuthorizeFunction;
}

/** A denial before the message is formatted: the policy, the binding (if any) and the decision. */
interface Denial {
  readonly policy: string;
  readonly binding?: string | undefined;
  readonly message: string;
  readonly reason: string;
}

/** A binding with the compiled policy it names. */
interface Bound {
  readonly policy: CompiledPolicy;
  readonly binding: ValidatingAdmissionPolicyBinding;
}

const STATUS_CODES: Readonly<Record<string, number>> = {
  Forbidden: 403,
  Unauthorized: 401,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

function denialError(attributes: AdmissionAttributes, denial: Denial): StatusError {
  const text =
    denial.binding !== undefined
      ? `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`
      : `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.message}`;
  const name = attributes.name || (attributes.object ? displayName(attributes.object) : '');
  const base = forbidden(attributes.resource, name, text);
  const reason = (denial.reason || 'Invalid') as StatusReason;
  return new StatusError(STATUS_CODES[reason] ?? 500, reason, base.message, {
    ...base.details,
    causes: [{ message: text }],
  });
}

export function validatingAdmissionPolicyAdmission(
  options: ValidatingAdmissionPolicyOptions,
): AdmissionPlugin {
  const matchRequest = (attributes: AdmissionAttributes): MatchRequest =>
    matchRequestOf(
      attributes,
      options.equivalentVersions?.(attributes.resource.group, attributes.resource.resource),
    );

  const validate = async (
    attributes: AdmissionAttributes,
    rulesMatched: readonly Bound[],
    base: MatchRequest,
  ): Promise<void> => {
    const namespaceName =
      attributes.resource.group === '' && attributes.resource.resource === 'namespaces'
        ? ''
        : attributes.namespace;
    const namespace = namespaceName === '' ? undefined : await options.namespaces.find('', namespaceName);
    const { object, oldObject } = base;
    const request: MatchRequest = {
      ...base,
      namespaceLabels: (namespace?.metadata?.labels as Record<string, string> | undefined) ?? {},
    };
    const denials: Denial[] = [];
    const configError = (policy: CompiledPolicy, binding: string | undefined, error: unknown): void => {
      if (policy.failurePolicy === 'Ignore') return;
      const what = binding === undefined ? 'policy' : 'binding';
      const detail = error instanceof Error ? error.message : String(error);
      denials.push({
        policy: policy.name,
        binding,
        message: `failed to configure ${what}: ${detail}`,
        reason: '',
      });
    };
    const requestVariable = admissionRequest(attributes);
    const namespaceObject = namespaceVariable(namespace);
    const authorizer =
      options.authorize && attributes.user
        ? new CelAuthorizer(options.authorize, attributes.user, {
            group: attributes.resource.group,
            resource: attributes.resource.resource,
            subresource: attributes.subresource,
            namespace: attributes.namespace,
            name: request.name,
          })
        : undefined;
    const converted = new Map<unknown, unknown>();
    const matchedPolicies = new Map<string, boolean>();
    const reported = new Set<string>();
    for (const { policy, binding } of rulesMatched) {
      let policyMatches = matchedPolicies.get(policy.name);
      if (policyMatches === undefined) {
        try {
          policyMatches = matchesResources(policy.spec.matchConstraints, request);
        } catch (error) {
          configError(policy, undefined, error);
          policyMatches = false;
        }
        matchedPolicies.set(policy.name, policyMatches);
      }
      if (!policyMatches) continue;
      // A paramKind that names no served resource is the policy's configuration error, reported once.
      const paramKind = policy.spec.paramKind;
      if (paramKind !== undefined && paramKind !== null && options.params(paramKind) === undefined) {
        if (!reported.has(policy.name)) configError(policy, undefined, paramKindNotFound(paramKind));
        reported.add(policy.name);
        continue;
      }
      const bindingName = binding.metadata?.name ?? '';
      let params: unknown[];
      try {
        if (!matchesResources(binding.spec?.matchResources, request)) continue;
        params = await collectParams(
          options.params,
          policy.spec.paramKind,
          binding.spec?.paramRef,
          attributes.namespace,
        );
      } catch (error) {
        configError(policy, bindingName, error);
        continue;
      }
      for (const param of params) {
        const result = evaluatePolicy(policy, {
          object,
          oldObject,
          request: requestVariable,
          namespaceObject,
          params: param,
          authorizer,
          converted,
        });
        if (!result.matched) continue;
        for (const decision of result.decisions) act(attributes, policy, binding, decision, denials);
      }
    }
    if (denials.length > 0) throw denialError(attributes, denials[0]!);
  };

  return {
    name: 'ValidatingAdmissionPolicy',
    // Requests no policy's rules select are answered without a promise or a namespace read.
    validate(attributes) {
      if (options.policies.empty) return;
      const request = matchRequest(attributes);
      const rulesMatched: Bound[] = [];
      for (const bound of options.policies.bound())
        if (matchesRules(bound.policy.spec.matchConstraints, request)) rulesMatched.push(bound);
      if (rulesMatched.length === 0) return;
      return validate(attributes, rulesMatched, request);
    },
  };
}

/** Acts on one decision as the binding's validationActions say. */
function act(
  attributes: AdmissionAttributes,
  policy: CompiledPolicy,
  binding: ValidatingAdmissionPolicyBinding,
  decision: PolicyDecision,
  denials: Denial[],
): void {
  if (decision.action !== 'deny') return;
  const bindingName = binding.metadata?.name ?? '';
  for (const action of binding.spec?.validationActions ?? []) {
    if (action === 'Deny') {
      denials.push({
        policy: policy.name,
        binding: bindingName,
        message: decision.message,
        reason: decision.reason,
      });
    } else if (action === 'Warn') {
      attributes.warnings.push(
        `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${decision.message}`,
      );
    }
    // Audit: recorded in the audit event's annotations upstream; tkube has no audit log.
  }
}
