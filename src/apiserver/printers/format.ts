// Text helpers shared by the printers, each matching the Kubernetes helper named in its comment.

import { isJsonObject } from '../../api/object.js';
import { compareGoStrings } from '../../api/selectors/go-text.js';
import { type LabelSelectorObject, labelSelectorFromObject } from '../../api/selectors/index.js';
import { list, str, stringMap } from './access.js';

/** labels.FormatLabels: `a=b,c=d` sorted by key, `<none>` for no labels. */
export function formatLabels(labels: unknown): string {
  const map = stringMap(labels);
  const keys = Object.keys(map).sort(compareGoStrings);
  return keys.length === 0 ? '<none>' : keys.map((key) => `${key}=${map[key]}`).join(',');
}

function asSelectorObject(selector: unknown): LabelSelectorObject | undefined {
  return isJsonObject(selector) ? (selector as LabelSelectorObject) : undefined;
}

/**
 * metav1.LabelSelectorAsSelector(...).String(): the selector's canonical text, `''` for a nil or empty
 * selector; undefined when the selector does not convert.
 */
export function labelSelectorText(selector: unknown): string | undefined {
  try {
    return labelSelectorFromObject(asSelectorObject(selector)).toString();
  } catch {
    return undefined;
  }
}

/** metav1.FormatLabelSelector: the canonical text, `<none>` when it selects everything or nothing. */
export function formatLabelSelector(selector: unknown): string {
  const text = labelSelectorText(selector);
  if (text === undefined) return '<error>';
  return text === '' ? '<none>' : text;
}

/**
 * The protobuf-generated String() of a *metav1.LabelSelector (used for admission policy bindings'
 * ParamRef), e.g. `&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]...{},}`.
 */
export function goLabelSelectorStruct(selector: unknown): string {
  if (!isJsonObject(selector)) return 'nil';
  const labels = stringMap(selector, 'matchLabels');
  const labelText = Object.keys(labels)
    .sort(compareGoStrings)
    .map((key) => `${key}: ${labels[key]},`)
    .join('');
  const expressions = list(selector, 'matchExpressions')
    .map((requirement) => {
      const values = list(requirement, 'values').map((value) => (typeof value === 'string' ? value : ''));
      const key = str(requirement, 'key');
      const operator = str(requirement, 'operator');
      return `LabelSelectorRequirement{Key:${key},Operator:${operator},Values:[${values.join(' ')}],},`;
    })
    .join('');
  return (
    `&LabelSelector{MatchLabels:map[string]string{${labelText}},` +
    `MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`
  );
}

/** layoutContainerCells: the containers' names and images, each joined by commas. */
export function containerCells(containers: unknown[]): [names: string, images: string] {
  return [
    containers.map((container) => str(container, 'name')).join(','),
    containers.map((container) => str(container, 'image')).join(','),
  ];
}

/** listWithMoreString: `a,b,c + 2 more...`, or `<unset>` for an empty list. */
export function listWithMore(items: readonly string[], total: number, max: number): string {
  const text = items.slice(0, max).join(',');
  if (total > max) return `${text} + ${total - max} more...`;
  return text === '' ? '<unset>' : text;
}

/** printBoolPtr: `True`, `False` or `<unset>`. */
export function boolPointer(value: boolean | undefined): string {
  if (value === undefined) return '<unset>';
  return value ? 'True' : 'False';
}

/** net.JoinHostPort: brackets around IPv6 hosts. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** schema.ParseGroupVersion's group: `''` for `v1`, `apps` for `apps/v1`; undefined when malformed. */
export function groupOfApiVersion(apiVersion: string): string | undefined {
  if (apiVersion === '' || apiVersion === '/') return '';
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0];
  return undefined;
}

/** The sorted, distinct strings of a list (sets.NewString(...).List()). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareGoStrings);
}
