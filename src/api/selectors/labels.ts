// Label selectors (k8s.io/apimachinery/pkg/labels): the query-string syntax, matching, and the
// metav1.LabelSelector object form.
import { parseLabelRequirements } from './label-parser.js';
import { LabelSelector } from './label-selector.js';

export {
  type LabelOperator,
  LabelRequirement,
  type Labels,
  newLabelRequirement,
} from './label-requirement.js';
export { LabelSelector, labelSelectorFromSet, validatedLabelSelectorFromSet } from './label-selector.js';
export {
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
  type LabelSelectorValidationOptions,
  labelSelectorFromObject,
  validateLabelSelectorObject,
} from './label-selector-object.js';

/**
 * Parses a `labelSelector` string such as `app=web,tier in (a,b),!canary`. The empty string
 * selects everything. Throws a SelectorError carrying kube-apiserver's message when invalid.
 */
export function parseLabelSelector(text: string): LabelSelector {
  return LabelSelector.of(parseLabelRequirements(text));
}
