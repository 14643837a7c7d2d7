import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import type { Rendering } from '../http/negotiate.js';
import { apiVersionOf, listKind } from './list-body.js';

/** Renders objects as a meta.k8s.io/v1 Table; provided by the printers. */
export type TableRenderer = (
  info: ResourceInfo,
  objects: KubeObject[],
  includeObject: 'None' | 'Object' | 'Metadata',
) => { columnDefinitions: unknown[]; rows: unknown[] };

function partialMetadata(object: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata ?? {} };
}

export function includeObjectParam(value: string | null): 'None' | 'Object' | 'Metadata' {
  return value === 'None' || value === 'Metadata' ? value : 'Object';
}

/** One object in the rendering the client negotiated. */
export function renderObject(
  rendering: Rendering,
  info: ResourceInfo,
  object: KubeObject,
  renderTable: TableRenderer,
  includeObject: 'None' | 'Object' | 'Metadata',
): unknown {
  if (rendering === 'PartialObjectMetadata') return partialMetadata(object);
  if (rendering === 'Table') {
    const table = renderTable(info, [object], includeObject);
    return {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: object.metadata?.resourceVersion },
      ...table,
    };
  }
  return object;
}

/** A list in the rendering the client negotiated (other than plain JSON). */
export function renderList(
  rendering: Rendering,
  info: ResourceInfo,
  items: readonly string[],
  metadata: Record<string, string>,
  renderTable: TableRenderer,
  includeObject: 'None' | 'Object' | 'Metadata',
): unknown {
  const objects = items.map((text) => JSON.parse(text) as KubeObject);
  if (rendering === 'Table') {
    return {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata,
      ...renderTable(info, objects, includeObject),
    };
  }
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    items: objects.map(partialMetadata),
  };
}

export { apiVersionOf, listKind };
