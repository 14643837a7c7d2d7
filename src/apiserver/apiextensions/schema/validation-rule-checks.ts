// The shape of x-kubernetes-validations rules on a CRD schema node (apiextensions-apiserver
// validation.go): rule and message text, reason, fieldPath. Compiling the rules, their cost and
// where oldSelf may be used are the CEL checks (src/apiserver/cel).
import {
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../api/selectors/index.js';
import type { JSONSchemaProps } from '../../../api/types/apiextensions-v1.generated.js';
import { compileSchema } from './compiled.js';
import { validFieldPath } from './field-path.js';
import { isJsonObject } from './json-value.js';
import { structuralConversionError } from './structural.js';

const VALIDATION_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];
const NEWLINES = /[\n\r]+/;

/**
 * The shape of x-kubernetes-validations rules (compiling them, cost and oldSelf placement are
 * the CEL checks, done by src/apiserver/cel).
 */
export function validationRuleChecks(schema: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const rules = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  rules.forEach((rule, index) => {
    if (!isJsonObject(rule)) return;
    const at = (field: string) => `${path}.x-kubernetes-validations[${index}].${field}`;
    const text = typeof rule.rule === 'string' ? rule.rule : '';
    const message = typeof rule.message === 'string' ? rule.message : '';
    const trimmedRule = text.trim();
    const trimmedMessage = message.trim();
    if (trimmedRule === '') errors.push(fieldRequired(at('rule'), 'rule is not specified'));
    else if (message !== '' && trimmedMessage === '') {
      errors.push(fieldInvalid(at('message'), message, 'message must be non-empty if specified'));
    } else if (NEWLINES.test(trimmedMessage)) {
      errors.push(fieldInvalid(at('message'), message, 'message must not contain line breaks'));
    } else if (NEWLINES.test(trimmedRule) && trimmedMessage === '') {
      errors.push(fieldRequired(at('message'), 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
    if (messageExpression !== '' && messageExpression.trim() === '') {
      errors.push(fieldRequired(at('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (typeof rule.reason === 'string' && !VALIDATION_REASONS.includes(rule.reason)) {
      errors.push(fieldNotSupported(at('reason'), rule.reason, VALIDATION_REASONS));
    }
    const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
    if (fieldPath !== '' && fieldPath.trim() === '') {
      errors.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    }
    if (NEWLINES.test(fieldPath))
      errors.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath !== '' && structuralConversionError(schema) === undefined) {
      if (validFieldPath(fieldPath, compileSchema(schema)) instanceof Error) {
        errors.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
      }
    }
  });
}
