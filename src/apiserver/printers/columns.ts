// Building blocks for column definitions.
import { type DescriptionKey, fieldDescription } from './descriptions.js';
import type { ColumnType, TableColumnDefinition } from './types.js';

interface ColumnOptions {
  format?: string;
  /** 1 for columns only `-o wide` shows. */
  priority?: number;
}

/** A column whose description is given as text. */
export function column(
  name: string,
  type: ColumnType,
  description: string,
  options: ColumnOptions = {},
): TableColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** A column described by the documentation of an API field. */
export function fieldColumn(
  name: string,
  type: ColumnType,
  key: DescriptionKey,
  options: ColumnOptions = {},
): TableColumnDefinition {
  return column(name, type, fieldDescription(key), options);
}

/** Wide-only (priority 1) variant of {@link fieldColumn}. */
export function wideFieldColumn(name: string, type: ColumnType, key: DescriptionKey): TableColumnDefinition {
  return fieldColumn(name, type, key, { priority: 1 });
}

/** The Name column most kinds start with. */
export const NAME = fieldColumn('Name', 'string', 'meta/v1.ObjectMeta.name', { format: 'name' });

/** The Age column (creation time, printed as a duration). */
export const AGE = fieldColumn('Age', 'string', 'meta/v1.ObjectMeta.creationTimestamp');

const CONTAINERS_TEXT = 'Names of each container in the template.';
const IMAGES_TEXT = 'Images referenced by each container in the template.';

/** The Containers and Images columns of workload kinds (wide-only unless `priority` says otherwise). */
export function templateColumns(priority = 1): TableColumnDefinition[] {
  return [
    column('Containers', 'string', CONTAINERS_TEXT, { priority }),
    column('Images', 'string', IMAGES_TEXT, { priority }),
  ];
}
