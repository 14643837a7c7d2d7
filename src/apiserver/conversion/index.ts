// Conversion between the served versions of a kind that share one storage: reads and writes through
// any of them see the same objects, converted as kube-apiserver does through its internal types.
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf, type ConvertibleKind, type GroupVersion } from './convertible-kind.js';
import { EVENT } from './event.js';
import { HORIZONTAL_POD_AUTOSCALER } from './horizontal-pod-autoscaler.js';

export type { GroupVersion } from './convertible-kind.js';
export {
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
  CURRENT_METRICS_ANNOTATION,
  METRICS_ANNOTATION,
} from './horizontal-pod-autoscaler.js';

const KINDS: readonly ConvertibleKind[] = [HORIZONTAL_POD_AUTOSCALER, EVENT];

const STORAGE_BY_RESOURCE = new Map<string, GroupVersion>();
for (const kind of KINDS) {
  for (const { group, resource } of kind.resources)
    STORAGE_BY_RESOURCE.set(`${group}/${resource}`, kind.storage);
}

/**
 * The group-version a resource is stored as when several group-versions serve it (including the
 * group that serves the storage version itself); undefined for every other resource, which is
 * stored exactly as served.
 */
export function storageVersionOf(group: string, resource: string): GroupVersion | undefined {
  const storage = STORAGE_BY_RESOURCE.get(`${group}/${resource}`);
  return storage && { group: storage.group, version: storage.version };
}

/**
 * The object as `to` serves it, with that apiVersion and kind. Converting to the object's own
 * version still goes through the internal form (as a kube-apiserver write does), which drops
 * unknown fields and writes Go's zero values. Pure: the input is never modified or shared.
 */
export function convert(object: KubeObject, to: GroupVersion): KubeObject {
  const from = object.apiVersion;
  const target = apiVersionOf(to);
  const kind = KINDS.find((candidate) => candidate.kind === object.kind);
  const read = kind && typeof from === 'string' ? kind.codecs.get(from)?.read : undefined;
  if (kind === undefined || read === undefined) {
    throw new Error(
      `no conversion for kind ${JSON.stringify(object.kind)} in apiVersion ${JSON.stringify(from)}`,
    );
  }
  const write = kind.codecs.get(target)?.write;
  if (write === undefined) {
    const served = [...kind.codecs.keys()].join(', ');
    throw new Error(`cannot convert ${kind.kind} from ${from} to ${target}: it is served only as ${served}`);
  }
  return write(read(object));
}

/**
 * The apiVersions a kind converts between (`autoscaling/v2`, `autoscaling/v1`); undefined for a
 * kind served in one version only.
 */
export function convertibleVersionsOf(kind: string): readonly string[] | undefined {
  const convertible = KINDS.find((candidate) => candidate.kind === kind);
  return convertible && [...convertible.codecs.keys()];
}
