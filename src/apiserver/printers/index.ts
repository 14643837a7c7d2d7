// Server-side printing: the meta.k8s.io Table kube-apiserver returns for `as=Table` requests, with the
// columns and cells of Kubernetes' own printers, so `kubectl get` shows what it shows against Kubernetes.
import type { KubeObject } from '../../api/object.js';
import { defaultTable } from './default-table.js';
import { printerFor } from './registry.js';
import type {
  IncludeObjectPolicy,
  KindPrinter,
  PartialObjectMetadata,
  Table,
  TableColumnDefinition,
  TableListMeta,
  TableRow,
  TableRowObject,
} from './types.js';

export type {
  ColumnType,
  IncludeObjectPolicy,
  KindPrinter,
  PartialObjectMetadata,
  Table,
  TableColumnDefinition,
  TableListMeta,
  TableRow,
  TableRowCondition,
  TableRowObject,
} from './types.js';

/** `meta.k8s.io/v1` unless the client asked for the older `meta.k8s.io/v1beta1` Table. */
export type MetaGroupVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

export interface PrintOptions {
  /** The server clock for ages and durations; the current time by default. */
  now?: Date;
  /** What each row's `object` holds; kubectl sends `Object`, Kubernetes' own default is `Metadata`. */
  includeObject: IncludeObjectPolicy;
  /**
   * The list's metadata when printing a list response. Without it the table prints one object
   * (a get or a watch event) and carries that object's resourceVersion, as Kubernetes does.
   */
  listMeta?: TableListMeta;
  /** Leave out the column definitions (every watch event after the first), as TableOptions.NoHeaders. */
  noHeaders?: boolean;
  /** The group/version of the Table and of PartialObjectMetadata rows. */
  metaGroupVersion?: MetaGroupVersion;
  /** The printer of a kind not built in (a custom resource's printer columns). */
  printer?: KindPrinter;
}

function printerOf(group: string, kind: string): { printer: KindPrinter; isDefault: boolean } {
  const printer = printerFor(group, kind);
  return printer === undefined ? { printer: defaultTable, isDefault: true } : { printer, isDefault: false };
}

/** The column definitions kube-apiserver sends for a kind (including the wide-only ones). */
export function columnsFor(group: string, kind: string): TableColumnDefinition[] {
  return printerOf(group, kind).printer.columns.map((column) => ({ ...column }));
}

function rowObject(
  object: KubeObject,
  policy: IncludeObjectPolicy,
  metaGroupVersion: string,
): TableRowObject {
  switch (policy) {
    case 'Object':
      return object;
    case 'Metadata': {
      const partial: PartialObjectMetadata = {
        kind: 'PartialObjectMetadata',
        apiVersion: metaGroupVersion,
        metadata: object.metadata ?? {},
      };
      return partial;
    }
    case 'None':
      // Kubernetes sends `"object": null` rather than leaving the field out.
      return null;
  }
}

function tableMetadata(objects: readonly KubeObject[], listMeta: TableListMeta | undefined): TableListMeta {
  const source: TableListMeta = listMeta ?? { resourceVersion: objects[0]?.metadata?.resourceVersion };
  const metadata: TableListMeta = {};
  if (source.resourceVersion) metadata.resourceVersion = source.resourceVersion;
  if (source.continue) metadata.continue = source.continue;
  if (source.remainingItemCount !== undefined) metadata.remainingItemCount = source.remainingItemCount;
  return metadata;
}

/**
 * Renders objects of one kind as kube-apiserver's Table: every column, wide ones included (the
 * server always prints wide; clients hide priority > 0 columns themselves). Rows follow the input
 * order, except for kinds Kubernetes sorts (flow schemas).
 */
export function printTable(
  group: string,
  kind: string,
  objects: readonly KubeObject[],
  options: PrintOptions,
): Table {
  const now = options.now ?? new Date();
  const metaGroupVersion = options.metaGroupVersion ?? 'meta.k8s.io/v1';
  const { printer, isDefault } = options.printer
    ? { printer: options.printer, isDefault: false }
    : printerOf(group, kind);
  const ordered = printer.order ? printer.order(objects) : objects;
  const rows = ordered.map((object): TableRow => {
    const row: TableRow = { cells: printer.row(object, now) };
    const conditions = printer.conditions?.(object);
    if (conditions !== undefined && conditions.length > 0) row.conditions = conditions.map((c) => ({ ...c }));
    row.object = rowObject(object, options.includeObject, metaGroupVersion);
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: metaGroupVersion,
    metadata: tableMetadata(objects, options.listMeta),
    columnDefinitions: options.noHeaders ? null : printer.columns.map((column) => ({ ...column })),
    // The default convertor starts from a nil slice, so it sends null when there is nothing to print.
    rows: isDefault && rows.length === 0 ? null : rows,
  };
}
