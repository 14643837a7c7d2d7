// Helpers that look at every node of a parsed OpenAPI document.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls `visit` for every object in `value`, depth first, with its JSON-pointer-like path. */
export function walkObjects(value: Json, visit: (node: JsonObject, path: string) => void, path = ''): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walkObjects(item, visit, `${path}/${index}`);
  } else if (isObject(value)) {
    visit(value, path);
    for (const [key, inner] of Object.entries(value)) walkObjects(inner, visit, `${path}/${key}`);
  }
}

/** Every `$ref` string in `value`. */
export function refsIn(value: Json): string[] {
  const refs: string[] = [];
  walkObjects(value, (node) => {
    if (typeof node.$ref === 'string') refs.push(node.$ref);
  });
  return refs;
}

export function parse(body: Buffer): JsonObject {
  const value = JSON.parse(body.toString('utf8')) as Json;
  if (!isObject(value)) throw new Error('document is not an object');
  return value;
}

/** `document[a][b]...`, failing loudly when a step is missing. */
export function at(document: Json, ...keys: string[]): Json {
  let current: Json = document;
  for (const key of keys) {
    if (!isObject(current) || !(key in current)) throw new Error(`no ${key} at ${keys.join(' > ')}`);
    current = current[key]!;
  }
  return current;
}
