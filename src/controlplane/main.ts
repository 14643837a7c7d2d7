// The control plane's own entry point: `node dist/controlplane/main.js --state-dir D --api-port P`.
// It skips the CLI framework so that a new cluster answers /readyz sooner.
import { parseCommandLine, runControlPlane } from './run.js';

// No top-level await: the bundle is CommonJS (see scripts/build/bundle-controlplane.ts).
function fail(error: unknown): never {
  console.error(`control plane failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

try {
  runControlPlane(parseCommandLine(process.argv.slice(2)), (line) => console.log(line)).catch(fail);
} catch (error) {
  fail(error);
}
