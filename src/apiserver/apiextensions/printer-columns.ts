// apiextensions-apiserver's table convertor (pkg/registry/customresource/tableconvertor): a Name
// column, then the version's additionalPrinterColumns (or Age when it has none), each cell the
// first value its JSON path finds, typed as the column says.
import type { KubeObject } from '../../api/object.js';
import { NAME } from '../printers/columns.js';
import { fieldDescription } from '../printers/descriptions.js';
import { humanDuration, parseTimestamp } from '../printers/duration.js';
import { nameOf } from '../printers/meta.js';
import type { ColumnType, KindPrinter, TableColumnDefinition } from '../printers/types.js';
import { stringOf } from '../registry/validation/json.js';
import { findResults, parseJsonPath } from './jsonpath.js';

/** serveDefaultColumnsIfEmpty: the column a CRD version without printer columns gets. */
const DEFAULT_COLUMNS: readonly Record<string, unknown>[] = [
  {
    name: 'Age',
    type: 'date',
    description: fieldDescription('meta/v1.ObjectMeta.creationTimestamp'),
    jsonPath: '.metadata.creationTimestamp',
  },
];

/** Go's `%v` of a float64: shortest form, exponent below 1e-4 and from 1e21, two exponent digits. */
function goFloat(value: number): string {
  const magnitude = Math.abs(value);
  if (value !== 0 && (magnitude < 1e-4 || magnitude >= 1e21)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(value);
}

/** What client-go's JSONPath prints for one value: strings as they are, maps and lists as JSON. */
function printValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null) return '<nil>';
  return JSON.stringify(value);
}

/** cellForJSONValue. */
function cellFor(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const ms = parseTimestamp(value);
      return ms === undefined ? '<invalid>' : humanDuration(now.getTime() - ms);
    }
    default:
      return null;
  }
}

/** The Table printer of one served version of a CRD. */
export function customResourcePrinter(columns: readonly Record<string, unknown>[]): KindPrinter {
  const given = columns.length > 0 ? columns : DEFAULT_COLUMNS;
  const parsed = given.map((column) => {
    const type = stringOf(column.type);
    let steps: ReturnType<typeof parseJsonPath> | undefined;
    try {
      steps = parseJsonPath(stringOf(column.jsonPath));
    } catch {
      steps = undefined;
    }
    return { type, steps };
  });
  const definitions: TableColumnDefinition[] = [
    NAME,
    ...given.map((column) => ({
      name: stringOf(column.name),
      type: stringOf(column.type) as ColumnType,
      format: stringOf(column.format),
      description: stringOf(column.description),
      priority: typeof column.priority === 'number' ? column.priority : 0,
    })),
  ];
  return {
    columns: definitions,
    row(object: KubeObject, now: Date) {
      const cells: unknown[] = [nameOf(object)];
      for (const { type, steps } of parsed) {
        const results = steps ? findResults(steps, object) : [];
        const value = results[0];
        if (results.length === 0 || value === undefined) cells.push(null);
        else if (type === 'string') cells.push(printValue(value));
        else cells.push(cellFor(type, value, now));
      }
      return cells;
    },
  };
}
