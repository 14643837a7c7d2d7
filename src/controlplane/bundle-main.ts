// The entry point of the control plane bundle (dist/controlplane-bundle/main.js): the bundle
// proper, controlplane.cjs beside it, runs with its V8 code cache.
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from './code-cache-loader.js';

const bundle = fileURLToPath(new URL('./controlplane.cjs', import.meta.url));
runWithCodeCache(bundle, `${bundle}.cache`);
