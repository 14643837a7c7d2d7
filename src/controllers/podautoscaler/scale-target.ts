// The HPA's scale target (horizontal.go's REST mappings and scaleForResourceMappings): the
// resources that may serve scaleTargetRef's group and kind — built-in ones from the resource
// table, custom ones from the served versions of their CRD — and its autoscaling/v1 Scale read
// and written through the `scale` subresource, the first mapping that answers winning.
import { findByKind } from '../../api/resources/lookup.js';
import type { CustomResourceDefinition } from '../../api/types/apiextensions-v1.generated.js';
import type { Scale } from '../../api/types/autoscaling-v1.generated.js';
import type { Lister } from '../../client/informers/index.js';
import type { Client, ResourceRef } from '../../client/types.js';

/** A Scale and the resource it was read from (its update goes back there). */
export interface TargetScale {
  readonly scale: Scale;
  readonly resource: ResourceRef;
}

/** `apps/v1` → apps; `v1` → the core group (schema.ParseGroupVersion's checks). */
export function groupOf(apiVersion: string): string {
  if (apiVersion === '' || apiVersion === '/') return '';
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0] ?? '';
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

export class ScaleTargets {
  constructor(
    private readonly client: Client,
    private readonly crds: Lister<CustomResourceDefinition>,
  ) {}

  /** RESTMappings(GroupKind): every resource serving the kind in the group; throws NoKindMatchError's text. */
  mappings(group: string, kind: string): ResourceRef[] {
    const builtin = findByKind(group, kind);
    if (builtin !== undefined) return [builtin];
    const refs: ResourceRef[] = [];
    for (const crd of this.crds.list()) {
      if (crd.spec.group !== group || crd.spec.names.kind !== kind) continue;
      const versions = [...crd.spec.versions].filter((version) => version.served);
      // The storage version is the preferred one.
      versions.sort((a, b) => Number(b.storage) - Number(a.storage));
      for (const version of versions) {
        refs.push({
          group,
          version: version.name,
          resource: crd.spec.names.plural,
          kind,
          namespaced: crd.spec.scope === 'Namespaced',
        });
      }
    }
    if (refs.length === 0) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
    return refs;
  }

  /** The target's Scale from the first mapping that serves it, else the first mapping's error. */
  async get(namespace: string, name: string, mappings: readonly ResourceRef[]): Promise<TargetScale> {
    let firstError: unknown;
    for (const resource of mappings) {
      try {
        const scale = await this.client.resource(resource).getSubresource<Scale>(namespace, name, 'scale');
        return { scale, resource };
      } catch (error) {
        firstError ??= error;
      }
    }
    throw firstError ?? new Error('unrecognized resource');
  }

  /** Writes the Scale's spec.replicas back through the subresource. */
  async update(target: TargetScale, replicas: number): Promise<void> {
    const scale: Scale = { ...target.scale, spec: { ...target.scale.spec, replicas } };
    await this.client.resource<Scale>(target.resource).update(scale, { subresource: 'scale' });
  }
}
