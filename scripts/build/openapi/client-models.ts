// Reads the models that @kubernetes/client-node generates from the Kubernetes OpenAPI spec: property
// names, types and formats from each class's attributeTypeMap, descriptions and required-ness from
// its .d.ts (the only place the generator keeps them).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CLIENT_PACKAGE = '@kubernetes/client-node';

/** One property of a model: `type` is the generator's TypeScript spelling (`Array<V1Container>`, ...). */
export interface ClientProperty {
  jsonName: string;
  type: string;
  format: string;
  description?: string;
  required: boolean;
}

export interface ClientModel {
  name: string;
  description?: string;
  properties: ClientProperty[];
}

export interface ClientModels {
  packageVersion: string;
  /** The spec version the models were generated from, e.g. `v1.33.0`. */
  specVersion: string;
  models: Map<string, ClientModel>;
}

interface AttributeTypeMapEntry {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

interface DocComments {
  classDescription?: string;
  properties: Map<string, { description?: string; optional: boolean }>;
}

const require = createRequire(import.meta.url);

export async function loadClientModels(): Promise<ClientModels> {
  const packageDir = join(dirname(require.resolve(CLIENT_PACKAGE)), '..');
  const packageVersion = (
    JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const modelsDir = join(packageDir, 'dist', 'gen', 'models');
  // all.js re-exports exactly the models of the current spec; the folder also holds stale files.
  const exported = (await import(pathToFileURL(join(modelsDir, 'all.js')).href)) as Record<string, unknown>;
  const models = new Map<string, ClientModel>();
  let specVersion = '';
  for (const [name, value] of Object.entries(exported)) {
    const attributes = attributeTypeMap(value);
    if (!attributes) continue;
    const declaration = readFileSync(join(modelsDir, `${name}.d.ts`), 'utf8');
    specVersion ||= /OpenAPI spec version: (\S+)/.exec(declaration)?.[1] ?? '';
    const docs = parseDocComments(declaration);
    models.set(name, {
      name,
      description: docs.classDescription,
      properties: attributes.map((attribute) => {
        const doc = docs.properties.get(attribute.name);
        if (!doc) throw new Error(`${name}.d.ts does not declare ${attribute.name}`);
        return {
          jsonName: attribute.baseName,
          type: attribute.type,
          format: attribute.format,
          description: doc.description,
          required: !doc.optional,
        };
      }),
    });
  }
  return { packageVersion, specVersion, models };
}

function attributeTypeMap(value: unknown): AttributeTypeMapEntry[] | undefined {
  if (typeof value !== 'function') return undefined;
  const map = (value as { attributeTypeMap?: unknown }).attributeTypeMap;
  return Array.isArray(map) ? (map as AttributeTypeMapEntry[]) : undefined;
}

/**
 * Pulls the JSDoc text directly in front of the class and each property out of a generated .d.ts
 * (imports follow the file's own header comment, so it never counts).
 */
function parseDocComments(source: string): DocComments {
  const docs: DocComments = { properties: new Map() };
  let comment: string[] | undefined;
  let pending: string | undefined;
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (comment) {
      if (trimmed === '*/') {
        pending = comment.join('\n');
        comment = undefined;
      } else {
        comment.push(trimmed.replace(/^\* ?/, ''));
      }
      continue;
    }
    if (trimmed === '/**') {
      comment = [];
      continue;
    }
    if (trimmed.startsWith('export declare class ')) {
      docs.classDescription = unescapeDoc(pending);
    } else {
      const property = /^'([^']+)'(\?)?:/.exec(trimmed);
      if (property) {
        docs.properties.set(property[1]!, {
          description: unescapeDoc(pending),
          optional: property[2] === '?',
        });
      }
    }
    pending = undefined;
  }
  return docs;
}

// The generator backslash-escapes quotes and backslashes, and breaks up comment markers: "*/" as
// "*_/" and "/*" as "/_*".
function unescapeDoc(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  return text.replace(/\\(.)/g, '$1').replaceAll('*_/', '*/').replaceAll('/_*', '/*');
}
