import { isJsonObject } from '../../api/object.js';
import type { GroupVersionKind } from '../openapi/schema.js';
import { type Shape, shapeForKind } from './shapes.js';

/**
 * Drops the fields a built-in type does not declare, in place: what decoding into the Go
 * type does in kube-apiserver, so unknown fields are never stored (field validation has
 * already rejected or warned about them). Maps, free-form and opaque values are kept whole.
 */
export function pruneUnknownFields(object: unknown, gvk: GroupVersionKind): void {
  prune(object, shapeForKind(gvk.group, gvk.version, gvk.kind));
}

function prune(value: unknown, shape: Shape): void {
  switch (shape.kind) {
    case 'struct':
      if (!isJsonObject(value)) return;
      for (const key of Object.keys(value)) {
        const field = shape.field(key);
        if (field === undefined) delete value[key];
        else prune(value[key], field.shape);
      }
      return;
    case 'map':
      if (!isJsonObject(value)) return;
      for (const entry of Object.values(value)) prune(entry, shape.values);
      return;
    case 'list':
      if (Array.isArray(value)) for (const item of value) prune(item, shape.items);
      return;
    default:
      return;
  }
}
