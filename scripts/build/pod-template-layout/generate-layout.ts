// Writes src/controllers/deployment/pod-template-layout.generated.ts: the Go struct layout of
// core/v1 PodTemplateSpec and every type it reaches (see go-layout.ts for the shape), read from
// Kubernetes 1.33's k8s.io/api and apimachinery type files in local git clones (the protobuf facts'
// sources). Run once with `tsx scripts/build/pod-template-layout/generate-layout.ts`; the output is
// committed.
import { writeFileSync } from 'node:fs';
import type { GoTypeFacts } from '../../../src/controllers/deployment/go-layout.js';
import { parseGoTypes } from '../protobuf/go-types.js';
import { listGoFiles, MODULE_TAG, readSourceFile } from '../protobuf/sources.js';

const output = new URL(
  '../../../src/controllers/deployment/pod-template-layout.generated.ts',
  import.meta.url,
);

type Package = 'core' | 'meta';
const PACKAGES: readonly { pkg: Package; repo: 'api' | 'apimachinery'; dir: string }[] = [
  { pkg: 'core', repo: 'api', dir: 'core/v1' },
  { pkg: 'meta', repo: 'apimachinery', dir: 'pkg/apis/meta/v1' },
];
/** Import aliases the packages use, to our package names. */
const ALIASES: Readonly<Record<string, string>> = {
  metav1: 'meta',
  resource: 'resource',
  intstr: 'intstr',
  types: 'types',
};
/** Types the hash printer renders by hand (their Go fields are unexported or their JSON is special). */
const SPECIAL = new Set([
  'meta.Time',
  'meta.MicroTime',
  'meta.FieldsV1',
  'resource.Quantity',
  'intstr.IntOrString',
]);
const EXTERNAL: Readonly<Record<string, GoTypeFacts>> = { 'types.UID': { basic: 'string' } };
const BUILTINS = new Set([
  'string',
  'bool',
  'int',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float64',
]);

const NAMED_BASIC = /^type (\w+) (string|bool|int|int32|int64|uint8|uint16|uint32|uint64|float64)$/;
const NAMED_COMPOSITE = /^type (\w+) ((?:map\[|\[\])\S+)$/;

/** A Go type as written in `pkg` to our canonical expression. */
function canonical(type: string, pkg: Package): string {
  if (type.startsWith('*')) return `*${canonical(type.slice(1), pkg)}`;
  if (type.startsWith('[]')) return `[]${canonical(type.slice(2), pkg)}`;
  if (type.startsWith('map[')) {
    const close = type.indexOf(']');
    return `map[${canonical(type.slice(4, close), pkg)}]${canonical(type.slice(close + 1), pkg)}`;
  }
  if (type === 'byte') return 'uint8';
  if (BUILTINS.has(type)) return type;
  const dot = type.indexOf('.');
  if (dot < 0) return `${pkg}.${type}`;
  // Types of other packages stay as written; reaching one is an error below.
  const alias = ALIASES[type.slice(0, dot)] ?? type.slice(0, dot);
  return `${alias}${type.slice(dot)}`;
}

const declared = new Map<string, GoTypeFacts>();
for (const { pkg, repo, dir } of PACKAGES) {
  const files = listGoFiles(repo, dir).map((path) => ({ path, text: readSourceFile(repo, path) }));
  const { structs } = parseGoTypes(files);
  for (const [name, fields] of structs) {
    if (fields instanceof Error) {
      declared.set(`${pkg}.${name}`, { underlying: `!${fields.message}` });
      continue;
    }
    declared.set(`${pkg}.${name}`, {
      struct: fields.map((field) => {
        const inline = field.embedded && (field.jsonName === undefined || field.jsonName === '');
        return [
          field.name,
          inline ? '' : (field.jsonName ?? field.name),
          canonical(field.type, pkg),
          inline,
        ] as const;
      }),
    });
  }
  for (const { text } of files) {
    for (const line of text.split('\n')) {
      const basic = NAMED_BASIC.exec(line);
      if (basic) declared.set(`${pkg}.${basic[1]}`, { basic: basic[2]! });
      const composite = NAMED_COMPOSITE.exec(line);
      if (composite) declared.set(`${pkg}.${composite[1]}`, { underlying: canonical(composite[2]!, pkg) });
    }
  }
}

/** The named types a type expression mentions. */
function namedTypesOf(type: string): string[] {
  if (type.startsWith('*')) return namedTypesOf(type.slice(1));
  if (type.startsWith('[]')) return namedTypesOf(type.slice(2));
  if (type.startsWith('map[')) {
    const close = type.indexOf(']');
    return [...namedTypesOf(type.slice(4, close)), ...namedTypesOf(type.slice(close + 1))];
  }
  return BUILTINS.has(type) ? [] : [type];
}

const layout: Record<string, GoTypeFacts> = {};
const pending = ['core.PodTemplateSpec'];
while (pending.length > 0) {
  const name = pending.pop()!;
  if (name in layout || SPECIAL.has(name)) continue;
  const facts = declared.get(name) ?? EXTERNAL[name];
  if (facts === undefined) throw new Error(`type ${name} is not declared`);
  if ('underlying' in facts && facts.underlying.startsWith('!')) throw new Error(facts.underlying.slice(1));
  layout[name] = facts;
  const mentioned =
    'struct' in facts
      ? facts.struct.map((field) => field[2])
      : 'underlying' in facts
        ? [facts.underlying]
        : [];
  for (const type of mentioned) pending.push(...namedTypesOf(type));
}

const sorted = Object.fromEntries(Object.entries(layout).sort(([a], [b]) => (a < b ? -1 : 1)));
const json = JSON.stringify({
  source: `k8s.io/api@${MODULE_TAG}, k8s.io/apimachinery@${MODULE_TAG}`,
  types: sorted,
});
const text = [
  '// Generated by scripts/build/pod-template-layout/generate-layout.ts; do not edit. See go-layout.ts.',
  'export const LAYOUT_JSON =',
  `  '${json.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}';`,
  '',
].join('\n');
writeFileSync(output, text);
console.log(`pod-template-layout.generated.ts: ${Object.keys(sorted).length} types, ${text.length} bytes`);
