// The control plane's own entry point: `node dist/controlplane/main.js --state-dir D --api-port P`.
// It skips the CLI framework so that a new cluster answers /readyz sooner.
import { parseCommandLine, runControlPlane } from './run.js';

try {
  await runControlPlane(parseCommandLine(process.argv.slice(2)), (line) => console.log(line));
} catch (error) {
  console.error(`control plane failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
