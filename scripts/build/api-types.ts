// Writes src/api/types/<group>-<version>.generated.ts: TypeScript interfaces for every built-in
// type, derived from the OpenAPI definitions the apiserver serves (builtin-definitions.generated.json),
// so controllers, the scheduler and the agent read objects through the same facts the server
// validates against. Run after scripts/build/openapi.ts when the definitions change; the output is
// committed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';

interface Schema {
  readonly description?: string;
  readonly type?: string;
  readonly format?: string;
  readonly $ref?: string;
  readonly items?: Schema;
  readonly additionalProperties?: Schema | boolean;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
}

const definitionsFile = new URL(
  '../../src/apiserver/openapi/builtin-definitions.generated.json',
  import.meta.url,
);
const outputDir = new URL('../../src/api/types/', import.meta.url);
const { definitions } = JSON.parse(readFileSync(definitionsFile, 'utf8')) as {
  definitions: Record<string, Schema>;
};

/** Scalar apimachinery types: their JSON form, not an object. */
const SCALARS: Readonly<Record<string, string>> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'string',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'string',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'string',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'number | string',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'Record<string, unknown>',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': 'Record<string, unknown>',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'Record<string, unknown>',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'unknown',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': 'unknown',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': 'unknown',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': 'unknown',
};

/** The module a definition lands in: `core-v1`, `apps-v1`, `meta-v1`, `apiextensions-v1` ... */
function moduleOf(name: string): string {
  const parts = name.split('.');
  const version = parts[parts.length - 2]!;
  if (name.startsWith('io.k8s.api.')) return `${parts[3]}-${version}`;
  if (name.startsWith('io.k8s.apimachinery.pkg.apis.meta.')) return 'meta-v1';
  if (name.startsWith('io.k8s.apiextensions-apiserver.')) return `apiextensions-${version}`;
  if (name.startsWith('io.k8s.kube-aggregator.')) return `apiregistration-${version}`;
  if (name === 'io.k8s.apimachinery.pkg.version.Info') return 'version';
  throw new Error(`no module for ${name}`);
}

function typeName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** The first sentence of a description, for a one-line doc comment. */
function summary(description: string | undefined): string | undefined {
  if (!description) return undefined;
  const sentence = description
    .split(/(?<=\.)\s/)[0]!
    .replace(/\*\//g, '*\\/')
    .replace(/\s+/g, ' ');
  return sentence.length > 200 ? `${sentence.slice(0, 197)}...` : sentence;
}

function render(schema: Schema, module: string, imports: Map<string, Set<string>>): string {
  if (schema.$ref) {
    const target = schema.$ref.replace('#/definitions/', '');
    const scalar = SCALARS[target];
    if (scalar) return scalar;
    const targetModule = moduleOf(target);
    const name = typeName(target);
    if (targetModule !== module) {
      const names = imports.get(targetModule) ?? new Set<string>();
      names.add(name);
      imports.set(targetModule, names);
    }
    return name;
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `${wrap(render(schema.items ?? {}, module, imports))}[]`;
    case 'object':
      if (schema.properties) return 'Record<string, unknown>';
      if (typeof schema.additionalProperties === 'object') {
        return `Record<string, ${render(schema.additionalProperties, module, imports)}>`;
      }
      return 'Record<string, unknown>';
    default:
      return 'unknown';
  }
}

function wrap(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

const modules = new Map<string, { imports: Map<string, Set<string>>; body: string[] }>();
const written: string[] = [];
for (const name of Object.keys(definitions).sort()) {
  if (SCALARS[name]) continue;
  const schema = definitions[name]!;
  const module = moduleOf(name);
  const entry = modules.get(module) ?? { imports: new Map<string, Set<string>>(), body: [] as string[] };
  modules.set(module, entry);
  const lines: string[] = [];
  const doc = summary(schema.description);
  if (doc) lines.push(`/** ${doc} */`);
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  if (Object.keys(properties).length === 0) {
    lines.push(`export type ${typeName(name)} = Record<string, never>;`);
    entry.body.push(lines.join('\n'));
    continue;
  }
  lines.push(`export interface ${typeName(name)} {`);
  for (const [property, propertySchema] of Object.entries(properties)) {
    const propertyDoc = summary(propertySchema.description);
    if (propertyDoc) lines.push(`  /** ${propertyDoc} */`);
    const key = /^[A-Za-z_$][\w$]*$/.test(property) ? property : JSON.stringify(property);
    const optional = required.has(property) ? '' : '?';
    lines.push(`  ${key}${optional}: ${render(propertySchema, module, entry.imports)};`);
  }
  lines.push('}');
  entry.body.push(lines.join('\n'));
}

rmSync(outputDir, { recursive: true, force: true });
mkdirSync(outputDir, { recursive: true });
for (const [module, { imports, body }] of [...modules].sort(([a], [b]) => a.localeCompare(b))) {
  const header = [
    '// Generated by scripts/build/api-types.ts from the OpenAPI definitions of Kubernetes 1.33. Do not edit.',
  ];
  for (const [from, names] of [...imports].sort(([a], [b]) => a.localeCompare(b))) {
    header.push(`import type { ${[...names].sort().join(', ')} } from './${from}.generated.js';`);
  }
  const path = new URL(`${module}.generated.ts`, outputDir);
  writeFileSync(path, `${header.join('\n')}\n\n${body.join('\n\n')}\n`);
  written.push(path.pathname);
}
await execa('npx', ['biome', 'format', '--write', ...written], { stdio: 'inherit' });
console.log(`src/api/types: ${written.length} modules, ${Object.keys(definitions).length} definitions`);
