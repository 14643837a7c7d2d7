// The meta.k8s.io Table that `kubectl get` asks for (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`),
// shaped as metav1.Table serializes to JSON.
import type { KubeObject } from '../../api/object.js';

/** The OpenAPI type of a column's cells; kube-apiserver's printers use these. */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface TableColumnDefinition {
  /** Human-readable, e.g. `Ready`; kubectl prints it upper-cased. */
  name: string;
  type: ColumnType;
  /** An OpenAPI format modifier: `name` marks the column holding the object's name; usually `''`. */
  format: string;
  description: string;
  /** 0 for the default columns; 1 and above for those `kubectl get -o wide` adds. */
  priority: number;
}

export interface TableRowCondition {
  /** Only `Completed` exists: the object reached a terminal state (pods that Succeeded or Failed). */
  type: 'Completed';
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

/** The object a row carries: the object itself, its PartialObjectMetadata, or `null` (includeObject=None). */
export type TableRowObject = KubeObject | PartialObjectMetadata | null;

export interface TableRow {
  /** One value per column definition: strings, numbers or booleans. */
  cells: unknown[];
  /** Omitted when empty, as metav1.TableRow does. */
  conditions?: TableRowCondition[];
  object?: TableRowObject;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: KubeObject['metadata'];
}

/** metav1.ListMeta: each field is left out when empty. */
export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: TableListMeta;
  /** `null` when headers were not asked for (watch events after the first). */
  columnDefinitions: TableColumnDefinition[] | null;
  /**
   * `null` only where Kubernetes sends it: the default convertor given no objects. The printers of
   * built-in kinds send `[]`.
   */
  rows: TableRow[] | null;
}

/** What each row's `object` holds (metav1.IncludeObjectPolicy). */
export type IncludeObjectPolicy = 'None' | 'Object' | 'Metadata';

/** One kind's printer: its columns and how an object becomes the cells of one row. */
export interface KindPrinter {
  readonly columns: readonly TableColumnDefinition[];
  /** The cells, one per column; `now` stands in for the server clock (AGE and other durations). */
  row(object: KubeObject, now: Date): unknown[];
  /** Row conditions (pods that finished carry `Completed`). */
  conditions?(object: KubeObject): TableRowCondition[] | undefined;
  /** The order rows come in, where Kubernetes sorts a list before printing it (flow schemas). */
  order?(objects: readonly KubeObject[]): KubeObject[];
}
