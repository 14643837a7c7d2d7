// metav1.LabelSelector as Go decodes and re-encodes it (empty maps and lists are omitted).
import type { JsonObject } from '../../api/object.js';
import { compact, type JsonReader } from './json-reader.js';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export function readLabelSelector(
  reader: JsonReader,
  source: JsonObject,
  name: string,
): LabelSelector | undefined {
  const selector = reader.object(source, name);
  if (selector === undefined) return undefined;
  const matchLabels = reader.stringMap(selector, 'matchLabels');
  const matchExpressions = reader.objects(selector, 'matchExpressions')?.map((requirement) => {
    const values = reader.strings(requirement, 'values');
    return compact({
      key: reader.string(requirement, 'key') ?? '',
      operator: reader.string(requirement, 'operator') ?? '',
      values: values !== undefined && values.length > 0 ? values : undefined,
    });
  });
  return compact({
    matchLabels: matchLabels !== undefined && Object.keys(matchLabels).length > 0 ? matchLabels : undefined,
    matchExpressions:
      matchExpressions !== undefined && matchExpressions.length > 0 ? matchExpressions : undefined,
  });
}
