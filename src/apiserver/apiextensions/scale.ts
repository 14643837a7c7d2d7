// The scale subresource of custom resources (apiextensions-apiserver's customresource scale REST):
// autoscaling/v1 Scale read from specReplicasPath, statusReplicasPath and labelSelectorPath.
import { isJsonObject } from '../../api/object.js';
import type { ScaleAdapter } from '../registry/custom-resource-serving.js';
import { stringOf } from '../registry/validation/json.js';

function segments(path: string): string[] {
  return path.slice(1).split('.');
}

function nested(object: unknown, path: string): unknown {
  let current = object;
  for (const part of segments(path)) current = isJsonObject(current) ? current[part] : undefined;
  return current;
}

export function scaleAdapter(scale: Record<string, unknown>): ScaleAdapter {
  const specReplicasPath = stringOf(scale.specReplicasPath);
  const statusReplicasPath = stringOf(scale.statusReplicasPath);
  const labelSelectorPath = stringOf(scale.labelSelectorPath);
  const integer = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : 0);
  return {
    specReplicasPath,
    toScale(object) {
      const meta = object.metadata ?? {};
      const selector = labelSelectorPath === '' ? '' : nested(object, labelSelectorPath);
      return {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: {
          name: meta.name,
          namespace: meta.namespace,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
          creationTimestamp: meta.creationTimestamp,
        },
        spec: { replicas: integer(nested(object, specReplicasPath)) },
        status: {
          replicas: integer(nested(object, statusReplicasPath)),
          ...(typeof selector === 'string' && selector !== '' ? { selector } : {}),
        },
      };
    },
    withReplicas(object, replicas) {
      const parts = segments(specReplicasPath);
      let current: Record<string, unknown> = object;
      for (const part of parts.slice(0, -1)) {
        if (!isJsonObject(current[part])) current[part] = {};
        current = current[part] as Record<string, unknown>;
      }
      current[parts[parts.length - 1]!] = replicas;
      return object;
    },
  };
}
