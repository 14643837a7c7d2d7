export {
  aggregateMessages,
  childPath,
  type FieldError,
  type FieldErrorType,
  fieldErrorBody,
  fieldErrorMessage,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from './field-errors.js';
export {
  escapeFieldValue,
  type FieldGetter,
  type FieldOperator,
  type FieldRequirement,
  FieldSelector,
  type FieldTransform,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
} from './fields.js';
export {
  type LabelOperator,
  LabelRequirement,
  LabelSelector,
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
  type LabelSelectorValidationOptions,
  type Labels,
  labelSelectorFromObject,
  labelSelectorFromSet,
  newLabelRequirement,
  parseLabelSelector,
  validatedLabelSelectorFromSet,
  validateLabelSelectorObject,
} from './labels.js';
export { isDns1123Subdomain, isQualifiedName, isValidLabelValue } from './name-validation.js';
export { SelectorError } from './selector-error.js';
