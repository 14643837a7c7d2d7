// What the two CLI bundles share (the npm package's, bundle-cli.ts, and the single executable's,
// executable.ts): an entry module importing every command oclif.manifest.json names, for oclif's
// explicit command strategy, and the plugin that keeps each compiled module's import.meta.url.
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'dist');

interface Manifest {
  commands: Record<string, { relativePath: string[] }>;
}

/**
 * The source of an entry module: `head`, then `COMMANDS` (id → command class) except the ids in
 * `omit`. Eager, each command is imported; lazy, each is a getter that require()s its module,
 * which esbuild then evaluates only when oclif asks for that command (oclif takes the others'
 * flags and help from oclif.manifest.json), as the unbundled CLI imports only the command it runs.
 */
export function cliEntrySource(
  head: string[],
  tail: string[] = [],
  { lazy = false, omit = [] }: { lazy?: boolean; omit?: readonly string[] } = {},
): string {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as Manifest;
  const entries = Object.entries(manifest.commands)
    .filter(([id]) => !omit.includes(id))
    .sort(([a], [b]) => a.localeCompare(b));
  const path = (relativePath: string[]) => JSON.stringify(join(root, ...relativePath));
  const commands = lazy
    ? entries.map(
        ([id, c]) => `get ${JSON.stringify(id)}() { return require(${path(c.relativePath)}).default; }`,
      )
    : entries.map(([id], i) => `${JSON.stringify(id)}: command${i}`);
  return [
    ...head,
    ...(lazy ? [] : entries.map(([, c], i) => `import command${i} from ${path(c.relativePath)};`)),
    `export const COMMANDS = {${commands.join(', ')}};`,
    ...tail,
  ].join('\n');
}

/**
 * Each compiled module finds files beside it through import.meta.url (package.json, the
 * bundles, templates): in a bundle it gets the URL it has in dist/, relative to `__tkubeDistUrl`,
 * which the bundle's banner defines.
 */
export const distModuleUrls: Plugin = {
  name: 'dist-module-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const path = relative(dist, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(path)}, __tkubeDistUrl).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};
