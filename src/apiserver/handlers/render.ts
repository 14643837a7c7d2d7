import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import type { Rendering } from '../http/negotiate.js';
import type { IncludeObjectPolicy, KindPrinter } from '../printers/types.js';

type Printers = typeof import('../printers/index.js');
let printers: Printers | undefined;

/**
 * The printers are loaded on the first Table request, not at start-up: a control plane
 * answers /readyz sooner, and clients that never ask for tables never pay for them.
 */
export async function loadPrinters(): Promise<void> {
  printers ??= await import('../printers/index.js');
}

function printTable(...args: Parameters<Printers['printTable']>): ReturnType<Printers['printTable']> {
  if (!printers) throw new Error('printers not loaded: call loadPrinters() first');
  return printers.printTable(...args);
}

function partialMetadata(object: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata ?? {} };
}

/** `includeObject` as kubectl sends it; kube-apiserver's default is Metadata. */
export function includeObjectParam(value: string | null): IncludeObjectPolicy {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/** One object (a get, or a watch event) in the rendering the client negotiated. */
export function renderObject(
  rendering: Rendering,
  info: ResourceInfo,
  object: KubeObject,
  includeObject: IncludeObjectPolicy,
  noHeaders = false,
  printer?: KindPrinter,
): unknown {
  if (rendering === 'PartialObjectMetadata' || rendering === 'PartialObjectMetadataList')
    return partialMetadata(object);
  if (rendering === 'Table')
    return printTable(info.group, info.kind, [object], {
      includeObject,
      noHeaders,
      ...(printer ? { printer } : {}),
    });
  return object;
}

/** A list in the rendering the client negotiated (other than plain JSON). */
export function renderList(
  rendering: Rendering,
  info: ResourceInfo,
  items: readonly string[],
  metadata: { resourceVersion: string; continue?: string },
  includeObject: IncludeObjectPolicy,
  printer?: KindPrinter,
): unknown {
  const objects = items.map((text) => JSON.parse(text) as KubeObject);
  if (rendering === 'Table')
    return printTable(info.group, info.kind, objects, {
      includeObject,
      listMeta: metadata,
      ...(printer ? { printer } : {}),
    });
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    items: objects.map(partialMetadata),
  };
}
