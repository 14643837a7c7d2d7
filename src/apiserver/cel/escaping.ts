// Property names as CEL identifiers (k8s.io/apiserver/pkg/cel/escaping.go): `-`, `.`, `/` and `__`
// are spelled out, CEL's reserved words are wrapped in `__`, and names CEL cannot spell are
// left out of the type altogether.

const RESERVED: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** Whether a name is one of CEL's reserved words (usable as an identifier only when escaped). */
export function isCelReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

const ESCAPES: Readonly<Record<string, string>> = {
  __: '__underscores__',
  '.': '__dot__',
  '-': '__dash__',
  '/': '__slash__',
};

/** The CEL identifier of a property name, or undefined when CEL cannot name it. */
export function escapeFieldName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (match) => ESCAPES[match]!);
}
