// What an established CustomResourceDefinition serves, read from the CRD object as discovery
// clients see it: the accepted names at the group's preferred served version. Controllers that act
// on every resource (namespace deletion, garbage collection) add these to the built-in table.
import { isJsonObject } from '../object.js';
import type { ResourceInfo } from './types.js';
import { compareKubeAwareVersions } from './versions.js';

type CustomResourceRef = Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>;

/** The resource of `crd` at its preferred served version; undefined until it is Established. */
export function preferredCustomResource(crd: unknown): CustomResourceRef | undefined {
  return servedCustomResources(crd)[0];
}

/** The resource of `crd` at each served version, preferred first; none until it is Established. */
export function servedCustomResources(crd: unknown): CustomResourceRef[] {
  if (!isJsonObject(crd) || !isJsonObject(crd.spec) || !isJsonObject(crd.status)) return [];
  const conditions = Array.isArray(crd.status.conditions) ? crd.status.conditions : [];
  const established = conditions.some(
    (condition) => isJsonObject(condition) && condition.type === 'Established' && condition.status === 'True',
  );
  const metadata = isJsonObject(crd.metadata) ? crd.metadata : {};
  if (!established || metadata.deletionTimestamp !== undefined) return [];
  const names = isJsonObject(crd.status.acceptedNames) ? crd.status.acceptedNames : {};
  const versions = (Array.isArray(crd.spec.versions) ? crd.spec.versions : [])
    .filter((version) => isJsonObject(version) && version.served === true && typeof version.name === 'string')
    .map((version) => (version as { name: string }).name)
    .sort(compareKubeAwareVersions);
  const group = typeof crd.spec.group === 'string' ? crd.spec.group : '';
  const { plural, kind } = names;
  if (typeof plural !== 'string' || typeof kind !== 'string') return [];
  const namespaced = crd.spec.scope === 'Namespaced';
  return versions.map((version) => ({ group, version, resource: plural, kind, namespaced }));
}
