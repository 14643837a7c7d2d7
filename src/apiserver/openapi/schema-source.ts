// Where the OpenAPI documents take their definitions from: the built-in ones by default; custom
// resources will bring their own.

import { definitionNameForKind, getDefinition } from './definitions.js';
import type { SchemaObject } from './schema.js';

export interface SchemaSource {
  definition(name: string): SchemaObject | undefined;
  /** The definition whose `x-kubernetes-group-version-kind` names this kind (core group is ""). */
  definitionNameForKind(group: string, version: string, kind: string): string | undefined;
  /** The definition as /openapi/v2 serves it, where that differs (custom resources' schemas). */
  v2Definition?(name: string): SchemaObject | undefined;
}

export const BUILTIN_SCHEMAS: SchemaSource = Object.freeze({
  definition: getDefinition,
  definitionNameForKind,
});
