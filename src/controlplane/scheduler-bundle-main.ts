// The entry point of the scheduler thread's bundle (dist/controlplane-bundle/scheduler-main.js):
// scheduler.cjs beside it, run with its own V8 code cache (see bundle-main.ts).
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from '../api/code-cache-loader.js';

const bundle = fileURLToPath(new URL('./scheduler.cjs', import.meta.url));
runWithCodeCache(bundle, `${bundle}.cache`, undefined, true);
