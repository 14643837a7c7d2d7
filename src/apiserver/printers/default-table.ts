// The table kube-apiserver gives kinds without a printer of their own (Roles, LimitRanges, ...):
// the name and the creation time as an RFC 3339 date.
import { at } from './access.js';
import { column, NAME } from './columns.js';
import { fieldDescription } from './descriptions.js';
import { parseTimestamp } from './duration.js';
import { nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

// Go's zero time, which a missing creationTimestamp formats as.
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** RFC 3339 in UTC with whole seconds, as Go's time.RFC3339 layout prints it. */
function rfc3339(value: unknown): string {
  const ms = parseTimestamp(value);
  if (ms === undefined) return ZERO_TIME;
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export const defaultTable: KindPrinter = {
  columns: [NAME, column('Created At', 'date', fieldDescription('meta/v1.ObjectMeta.creationTimestamp'))],
  row(object) {
    return [nameOf(object), rfc3339(at(object, 'metadata', 'creationTimestamp'))];
  },
};
