// The node agent's entry point in a node (/opt/tkube/agent/agent.mjs): the agent proper,
// agent.cjs beside it, runs with its V8 code cache. The build makes that cache by loading the
// bundle once (scripts/build/bundle-agent.ts): the node runs the Node.js that built the node
// image, so V8 takes it and the first start skips compiling what loading the agent compiles.
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from '../api/code-cache-loader.js';
import type { runAgentProcess } from './main.js';

const bundle = fileURLToPath(new URL('./agent.cjs', import.meta.url));
const { exports } = runWithCodeCache(bundle, `${bundle}.cache`);
(exports as { runAgentProcess: typeof runAgentProcess }).runAgentProcess(process.argv[2]);
