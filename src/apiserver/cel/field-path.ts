// A rule's `fieldPath` checked against the schema and normalized (apiextensions schema/cel
// validation.go, ValidFieldPath): `.name` and `['name']` steps through properties, `['key']`
// steps into additionalProperties maps.
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';

/** The path a rule's `fieldPath` names, relative to the node, or undefined when it names nothing (ValidFieldPath). */
export function normalizeFieldPath(fieldPath: string, schema: JSONSchemaProps): string | undefined {
  const tokens = fieldPath.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let current: JSONSchemaProps | undefined = schema;
  const parts: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    let name: string;
    if (token === '.') {
      const next = tokens[++i];
      if (next === undefined || next === '.' || next === '[' || next === ']') return undefined;
      name = next;
    } else if (token === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'"))
        return undefined;
      name = quoted.slice(1, -1).replace(/\\(.)/g, '$1');
      if (tokens[++i] !== ']') return undefined;
    } else return undefined;
    if (current?.properties !== undefined) {
      const prop: JSONSchemaProps | undefined = current.properties[name];
      if (prop === undefined) return undefined;
      parts.push(parts.length === 0 ? name : `.${name}`);
      current = prop;
    } else if (
      current?.additionalProperties !== undefined &&
      typeof current.additionalProperties === 'object'
    ) {
      parts.push(`[${name}]`);
      current = current.additionalProperties as JSONSchemaProps;
    } else return undefined;
  }
  return parts.join('');
}
