// Printers of admissionregistration.k8s.io.
import type { KubeObject } from '../../api/object.js';
import { at, list, optObj, str } from './access.js';
import { AGE, column, NAME } from './columns.js';
import { goLabelSelectorStruct } from './format.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

function webhookConfigurationPrinter(): KindPrinter {
  return {
    columns: [
      NAME,
      column(
        'Webhooks',
        'integer',
        'Webhooks indicates the number of webhooks registered in this configuration',
      ),
      AGE,
    ],
    row(configuration, now) {
      return [nameOf(configuration), list(configuration, 'webhooks').length, ageOf(configuration, now)];
    },
  };
}

export const mutatingWebhookConfigurations = webhookConfigurationPrinter();
export const validatingWebhookConfigurations = webhookConfigurationPrinter();

/** `apiVersion/kind` of spec.paramKind, `<unset>` without one. */
function paramKind(policy: KubeObject): string {
  const kind = optObj(policy, 'spec', 'paramKind');
  return kind === undefined ? '<unset>' : `${str(kind, 'apiVersion')}/${str(kind, 'kind')}`;
}

function policyPrinter(countColumn: string, countDescription: string, countField: string): KindPrinter {
  return {
    columns: [
      NAME,
      column(countColumn, 'integer', countDescription),
      column(
        'ParamKind',
        'string',
        'ParamKind specifies the kind of resources used to parameterize this policy',
      ),
      AGE,
    ],
    row(policy, now) {
      return [nameOf(policy), list(policy, 'spec', countField).length, paramKind(policy), ageOf(policy, now)];
    },
  };
}

export const validatingAdmissionPolicies = policyPrinter(
  'Validations',
  'Validations indicates the number of validation rules defined in this configuration',
  'validations',
);
export const mutatingAdmissionPolicies = policyPrinter(
  'Mutations',
  'Mutation indicates the number of mutations rules defined in this configuration',
  'mutations',
);

// The `namespace/name` of spec.paramRef (a star for the namespace when it has none), or its selector.
function paramRef(binding: KubeObject): string {
  const ref = optObj(binding, 'spec', 'paramRef');
  if (ref === undefined) return '<unset>';
  const name = str(ref, 'name');
  if (name !== '') return `${str(ref, 'namespace') || '*'}/${name}`;
  const selector = at(ref, 'selector');
  return selector === undefined ? '<unset>' : goLabelSelectorStruct(selector);
}

function bindingPrinter(): KindPrinter {
  return {
    columns: [
      NAME,
      column(
        'PolicyName',
        'string',
        'PolicyName indicates the policy definition which the policy binding binded to',
      ),
      column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
      AGE,
    ],
    row(binding, now) {
      return [nameOf(binding), str(binding, 'spec', 'policyName'), paramRef(binding), ageOf(binding, now)];
    },
  };
}

export const validatingAdmissionPolicyBindings = bindingPrinter();
export const mutatingAdmissionPolicyBindings = bindingPrinter();
