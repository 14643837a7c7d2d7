// The entry point of the component threads' bundle (dist/controlplane-bundle/component-main.js):
// components.cjs beside it, run with its own V8 code cache (see bundle-main.ts).
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from '../api/code-cache-loader.js';

const bundle = fileURLToPath(new URL('./components.cjs', import.meta.url));
runWithCodeCache(bundle, `${bundle}.cache`, undefined, true);
