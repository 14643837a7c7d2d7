import { compareGoStrings } from '../../api/selectors/go-text.js';
import type { GroupVersionKind } from '../openapi/schema.js';
import { type Shape, shapeForKind } from './shapes.js';
import { indexPath, keyPath } from './strict-scan.js';

// Unknown fields of an already decoded object. Create and update find them in the request bytes
// (strict-scan.ts); a strategic merge patch finds them in the merged object, which kube-apiserver turns
// into the typed object with runtime.DefaultUnstructuredConverter rather than the JSON decoder.

interface Cursor {
  readonly shape: Shape;
  readonly path: string | undefined;
  readonly value: object;
  readonly keys: readonly string[];
  next: number;
}

/**
 * Paths of the fields of `object` that its kind does not declare, in the object's key order, paths as
 * the JSON decoder prints them (`spec.template.spec.containers[0].imagex`, map keys included).
 */
export function unknownFields(object: unknown, gvk: GroupVersionKind): string[] {
  return walkUnknownFields(object, shapeForKind(gvk.group, gvk.version, gvk.kind), true);
}

/**
 * The unknown-field errors of runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation, which
 * kube-apiserver runs on the result of a strategic merge patch: `unknown field "<path>"` with the path
 * printed raw (not Go-quoted), the keys of maps left out of it, every error kept, sorted by text.
 */
export function conversionUnknownFieldErrors(object: unknown, shape: Shape): string[] {
  return walkUnknownFields(object, shape, false)
    .map((path) => `unknown field "${path}"`)
    .sort(compareGoStrings);
}

/** Depth-first over `object` (no recursion, bodies can nest deeply), reporting undeclared struct fields. */
function walkUnknownFields(object: unknown, root: Shape, mapKeysInPath: boolean): string[] {
  const found: string[] = [];
  const stack: Cursor[] = [];
  const enter = (value: unknown, shape: Shape, path: string | undefined): void => {
    if (value === null || typeof value !== 'object') return;
    const isList = Array.isArray(value);
    // A value of the wrong JSON type fails conversion with its own error; there is nothing to report here.
    if (shape.kind === 'list' ? !isList : shape.kind !== 'struct' && shape.kind !== 'map') return;
    if (shape.kind !== 'list' && isList) return;
    stack.push({ shape, path, value, keys: isList ? [] : Object.keys(value), next: 0 });
  };
  enter(object, root, undefined);

  while (stack.length > 0) {
    const cursor = stack.at(-1)!;
    const { shape, path, value } = cursor;
    if (shape.kind === 'list') {
      const items = value as readonly unknown[];
      if (cursor.next >= items.length) {
        stack.pop();
        continue;
      }
      const index = cursor.next++;
      enter(items[index], shape.items, indexPath(path, index));
      continue;
    }
    if (cursor.next >= cursor.keys.length) {
      stack.pop();
      continue;
    }
    const key = cursor.keys[cursor.next++]!;
    const child = (value as Record<string, unknown>)[key];
    if (shape.kind === 'map') {
      enter(child, shape.values, mapKeysInPath ? keyPath(path, key) : path);
    } else if (shape.kind === 'struct') {
      const field = shape.field(key);
      if (field === undefined) found.push(keyPath(path, key));
      else enter(child, field.shape, keyPath(path, key));
    }
  }
  return found;
}
