// The DaemonSet registry strategy's template generation (pkg/registry/apps/daemonset/strategy.go):
// the internal spec.templateGeneration, which apps/v1 carries as the
// `deprecated.daemonset.template.generation` annotation. It starts at 1 (or the value given at
// create), only the server changes it afterwards, and every change of the pod template adds one.
// The DaemonSet controller labels its pods `pod-template-generation` with it.
import { TEMPLATE_GENERATION_ANNOTATION } from '../../../api/daemon-sets.js';
import type { KubeObject } from '../../../api/object.js';
import type { Strategy } from '../strategy.js';
import { semanticEqual } from '../validation/json.js';

function templateGeneration(object: KubeObject): number {
  const text = object.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  // The v1 conversion parses it as a base-10 int64; anything else counts as unset here.
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : 0;
}

function setTemplateGeneration(object: KubeObject, generation: number): void {
  object.metadata ??= {};
  object.metadata.annotations = {
    ...object.metadata.annotations,
    [TEMPLATE_GENERATION_ANNOTATION]: String(generation),
  };
}

const templateOf = (object: KubeObject): unknown =>
  (object.spec as { template?: unknown } | undefined)?.template;

export const daemonSetStrategy: Partial<Strategy> = {
  prepareForCreate(object) {
    delete object.status;
    setTemplateGeneration(object, Math.max(templateGeneration(object), 1));
  },
  prepareForUpdate(object, old) {
    if (old.status === undefined) delete object.status;
    else object.status = old.status;
    // (A DaemonSet stored before the annotation was kept counts as generation 1.)
    const generation = Math.max(templateGeneration(old), 1);
    setTemplateGeneration(
      object,
      semanticEqual(templateOf(old), templateOf(object)) ? generation : generation + 1,
    );
  },
  prepareForStatusUpdate(object, old) {
    const generation = templateGeneration(old);
    if (generation > 0) setTemplateGeneration(object, generation);
    else delete object.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  },
};
