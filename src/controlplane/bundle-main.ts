// The entry point of the control plane bundle (dist/controlplane-bundle/main.js): the bundle
// proper, controlplane.cjs beside it, runs with its V8 code cache.
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from '../api/code-cache-loader.js';
import { clearThreadSemiSpaceFlag } from '../api/worker-threads.js';

// The flag the component threads clear when they start is cleared first: a cache made under
// other flags than the next start's is rejected by V8 (every start compiled the bundle anew).
clearThreadSemiSpaceFlag();
const bundle = fileURLToPath(new URL('./controlplane.cjs', import.meta.url));
runWithCodeCache(bundle, `${bundle}.cache`);
