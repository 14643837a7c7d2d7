// Some field errors carry Go values that Kubernetes prints with %#v (maps, label selectors, structs).
// A GoRendered bad value holds that text ready-made, so messages can match kube-apiserver's.

import { isJsonObject } from '../../../api/object.js';
import { GoRendered } from '../../../api/selectors/field-errors.js';
import { compareGoStrings, goQuote } from '../../../api/selectors/go-text.js';

export { GoRendered };

/** The bad value of errors that show none ("Invalid value: <detail>" without a value). */
export const OMITTED_VALUE = new GoRendered('', true);

/** `map[string]string{"a":"b"}` (Go sorts map keys when printing); `map[string]string(nil)` when absent. */
export function goStringMap(value: unknown): GoRendered {
  if (!isJsonObject(value)) return new GoRendered('map[string]string(nil)');
  const entries = Object.keys(value)
    .sort(compareGoStrings)
    .map((key) => `${goQuote(key)}:${goQuote(String(value[key] ?? ''))}`);
  return new GoRendered(`map[string]string{${entries.join(', ')}}`);
}

function goStringSliceOf(type: string, value: unknown): string {
  if (!Array.isArray(value)) return `[]${type}(nil)`;
  return `[]${type}{${value.map((item) => goQuote(String(item ?? ''))).join(', ')}}`;
}

/** A typed string slice such as `[]core.IPFamily{"IPv4"}`. */
export function goTypedStringSlice(type: string, value: unknown): GoRendered {
  return new GoRendered(goStringSliceOf(type, value));
}

/** A metav1.LabelSelector printed with %#v, as in `spec.selector: Invalid value: v1.LabelSelector{...}`. */
export function goLabelSelector(value: unknown): GoRendered {
  if (!isJsonObject(value)) return new GoRendered('null');
  const labels = goStringMap(value.matchLabels).text;
  const expressions = Array.isArray(value.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${value.matchExpressions
        .map((expression: unknown) => {
          const entry = isJsonObject(expression) ? expression : {};
          const key = goQuote(typeof entry.key === 'string' ? entry.key : '');
          const operator = goQuote(typeof entry.operator === 'string' ? entry.operator : '');
          return `v1.LabelSelectorRequirement{Key:${key}, Operator:${operator}, Values:${goStringSliceOf('string', entry.values)}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoRendered(`v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${expressions}}`);
}

/** intstr.IntOrString printed with %#v. */
export function goIntOrString(value: unknown): GoRendered {
  if (typeof value === 'number')
    return new GoRendered(`intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`);
  const text = typeof value === 'string' ? value : '';
  return new GoRendered(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(text)}}`);
}
