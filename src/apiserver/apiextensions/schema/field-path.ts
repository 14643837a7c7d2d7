// The `fieldPath` of x-kubernetes-validations rules (apiextensions-apiserver schema/cel
// ValidFieldPath): a JSON path such as `.spec.replicas` or `.labels['app.kubernetes.io/name']`,
// resolved against the schema node the rule sits on, giving the field path errors are reported at.
import type { CompiledSchema } from './compiled.js';

const ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

/** Splits like upstream's scanner: quoted strings, the delimiters `.`, `[`, `]`, and names. */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, Math.min(j + 1, path.length)));
      i = j + 1;
    } else if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}

function unescapeSingleQuote(text: string): string {
  return text.replace(/\\./g, (match) => {
    const replacement = ESCAPES[match[1]!];
    if (replacement === undefined) throw new Error(`invalid escape char ${match}`);
    return replacement;
  });
}

/**
 * The field path `jsonPath` names below `schema` (`spec.labels[app]`), or an Error saying why it
 * names none, with upstream's texts.
 */
export function validFieldPath(jsonPath: string, schema: CompiledSchema): string | Error {
  let node: CompiledSchema | undefined = schema;
  let path = '';
  const append = (name: string): Error | undefined => {
    if (node === undefined) return new Error('does not refer to a valid field');
    if (node.properties !== undefined) {
      path = path === '' ? name : `${path}.${name}`;
      node = node.properties.get(name);
      return node === undefined ? new Error('does not refer to a valid field') : undefined;
    }
    if (node.additionalProperties !== undefined) {
      path = `${path}[${name}]`;
      node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
      return undefined;
    }
    return new Error('does not refer to a valid field');
  };
  const list = tokens(jsonPath);
  for (let i = 0; i < list.length; i++) {
    const token = list[i]!;
    if (token === '[') {
      const quoted = list[++i];
      if (quoted === undefined) return new Error('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return new Error(`expected single quoted string but got ${quoted}`);
      }
      let name: string;
      try {
        name = unescapeSingleQuote(quoted.slice(1, -1));
      } catch (error) {
        return new Error(`invalid string literal: ${(error as Error).message}`);
      }
      const problem = append(name);
      if (problem !== undefined) return problem;
      const close = list[++i];
      if (close === undefined) return new Error('unexpected end of JSON path');
      if (close !== ']') return new Error(`expected ] but got ${close}`);
    } else if (token === '.') {
      const name = list[++i];
      if (name === undefined) return new Error('unexpected end of JSON path');
      const problem = append(name);
      if (problem !== undefined) return problem;
    } else {
      return new Error(`expected [ or . but got: ${token}`);
    }
  }
  return path;
}
