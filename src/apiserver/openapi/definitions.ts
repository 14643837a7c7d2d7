// The OpenAPI definitions of every built-in type, as kube-apiserver 1.33 names and shapes them. They are
// generated at build time (scripts/build/openapi.ts) and parsed on first use.
import { existsSync, readFileSync } from 'node:fs';
import {
  type BuiltinDefinitionsFile,
  DEFINITION_REF_PREFIX,
  type GroupVersionKind,
  type SchemaObject,
} from './schema.js';

const FILE_NAME = 'builtin-definitions.generated.json';
// Beside this module once the build copies it into dist/; in src/ when run from source. Both folders
// sit three levels below the package root.
const CANDIDATES = [
  new URL(`./${FILE_NAME}`, import.meta.url),
  new URL(`../../../src/apiserver/openapi/${FILE_NAME}`, import.meta.url),
];

interface LoadedDefinitions {
  file: BuiltinDefinitionsFile;
  byKind: Map<string, string>;
}

let loaded: LoadedDefinitions | undefined;

function load(): LoadedDefinitions {
  if (loaded) return loaded;
  const url = CANDIDATES.find((candidate) => existsSync(candidate));
  if (!url) throw new Error(`${FILE_NAME} is missing: run \`tsx scripts/build/openapi.ts\``);
  const file = JSON.parse(readFileSync(url, 'utf8')) as BuiltinDefinitionsFile;
  const byKind = new Map<string, string>();
  for (const [name, definition] of Object.entries(file.definitions)) {
    for (const gvk of definition['x-kubernetes-group-version-kind'] ?? []) byKind.set(gvkKey(gvk), name);
  }
  loaded = { file, byKind };
  return loaded;
}

function gvkKey({ group, version, kind }: GroupVersionKind): string {
  return `${group}/${version}/${kind}`;
}

/** Where the definitions came from, e.g. `v1.33.0` and `@kubernetes/client-node@1.3.0`. */
export function definitionsSource(): { kubernetesVersion: string; source: string } {
  const { kubernetesVersion, source } = load().file;
  return { kubernetesVersion, source };
}

/** The whole `definitions` map, keyed by definition name (`io.k8s.api.core.v1.Pod`). Do not mutate. */
export function allDefinitions(): Readonly<Record<string, SchemaObject>> {
  return load().file.definitions;
}

export function getDefinition(name: string): SchemaObject | undefined {
  return Object.hasOwn(load().file.definitions, name) ? load().file.definitions[name] : undefined;
}

/** The definition whose `x-kubernetes-group-version-kind` names this kind; the core group is "". */
export function definitionNameForKind(group: string, version: string, kind: string): string | undefined {
  return load().byKind.get(gvkKey({ group, version, kind }));
}

/** The definition name a `$ref` points at (`#/definitions/<name>`), or undefined if it is no such ref. */
export function refDefinitionName(ref: string): string | undefined {
  return ref.startsWith(DEFINITION_REF_PREFIX) ? ref.slice(DEFINITION_REF_PREFIX.length) : undefined;
}

/** Follows `$ref`s until a schema that is not a reference (a property's own extensions stay behind). */
export function resolveSchema(schema: SchemaObject): SchemaObject {
  let current = schema;
  for (let depth = 0; current.$ref !== undefined; depth++) {
    const name = refDefinitionName(current.$ref);
    const target = name === undefined ? undefined : getDefinition(name);
    if (!target || depth > 32) throw new Error(`unresolvable $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

/**
 * The schema of the field at `path` below a definition, e.g. `fieldSchema('io.k8s.api.core.v1.Pod',
 * ['spec', 'containers', 'ports'])`. Each segment is a property name, or a key when the schema there is
 * a map (`additionalProperties`); lists are stepped into implicitly, so a segment after a list names a
 * property of its items. The result is the property's own schema, unresolved, so it still carries the
 * field's description and x-kubernetes-patch-strategy / list-type extensions; pass it to
 * `resolveSchema` to reach the type it refers to. An empty path gives the definition itself.
 */
export function fieldSchema(definitionName: string, path: readonly string[]): SchemaObject | undefined {
  let current = getDefinition(definitionName);
  for (const segment of path) {
    if (!current) return undefined;
    let container = resolveSchema(current);
    while (container.type === 'array' && container.items) container = resolveSchema(container.items);
    if (container.properties && Object.hasOwn(container.properties, segment)) {
      current = container.properties[segment];
    } else if (container.additionalProperties) {
      current = container.additionalProperties;
    } else {
      return undefined;
    }
  }
  return current;
}
