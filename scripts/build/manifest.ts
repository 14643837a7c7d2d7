// Writes oclif.manifest.json from the compiled commands, so the CLI starts without
// importing every command module (what `oclif manifest` does, without its publishing toolchain).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';

const root = fileURLToPath(new URL('../..', import.meta.url));
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
writeFileSync(
  new URL('../../oclif.manifest.json', import.meta.url),
  `${JSON.stringify(plugin.manifest, null, 2)}\n`,
);
console.log(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`);
