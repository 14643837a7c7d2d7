// The node image's tag is a hash of everything that goes into it, so an image is built once
// per set of inputs and found again by name: no registry, no timestamps.
import { createHash } from 'node:crypto';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_IMAGE_REPOSITORY = 'tkube.local/node';

/** Bump when the builders' code changes what goes into an image. */
export const BUILDER_REVISION = 1;

export type NodeImageBuilder = 'offline' | 'dockerfile';

export interface NodeImageInputs {
  builder: NodeImageBuilder;
  /** templates/node file name → sha256 of its content. */
  templates: Record<string, string>;
  /** What else the builder takes in (host binaries, base image id, Node.js version) → identity. */
  sources: Record<string, string>;
}

/** templates/node in the installed package (the same path from src/ and dist/). */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../../../../templates/node/', import.meta.url));

/** Every file of the templates directory by name, sorted. */
export async function readNodeTemplates(dir: string = DEFAULT_TEMPLATES_DIR): Promise<Map<string, Buffer>> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
  const templates = new Map<string, Buffer>();
  for (const name of names) templates.set(name, await readFile(join(dir, name)));
  return templates;
}

export function templateDigests(templates: Map<string, Buffer>): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const [name, content] of templates) digests[name] = sha256(content);
  return digests;
}

/** A host file's identity without reading it: where it really is, its size and mtime. */
export async function fileIdentity(path: string): Promise<string> {
  const real = await realpath(path);
  const info = await stat(real);
  return `${real}:${info.size}:${Math.trunc(info.mtimeMs)}`;
}

export function nodeImageTag(inputs: NodeImageInputs): string {
  const canonical = JSON.stringify({
    revision: BUILDER_REVISION,
    builder: inputs.builder,
    templates: sortedRecord(inputs.templates),
    sources: sortedRecord(inputs.sources),
  });
  return `${NODE_IMAGE_REPOSITORY}:${sha256(canonical).slice(0, 12)}`;
}

function sortedRecord(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}
