// The control plane's own entry point: `node dist/controlplane/main.js --state-dir D --api-port P`.
// It skips the CLI framework so that a new cluster answers /readyz sooner. The control plane
// starts its component threads from component-main.js and scheduler-main.js beside this file (see component-thread.ts).
import { dirname, join } from 'node:path';
import { componentThreadLayoutFrom } from './component-thread.js';
import { runControlPlaneReplicas } from './replicas.js';
import { parseCommandLine, replicaArgs, runControlPlane } from './run.js';

// No top-level await: the bundle is CommonJS (see scripts/build/bundle-controlplane.ts).
function fail(error: unknown): never {
  console.error(`control plane failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

try {
  const entry = process.argv[1];
  const layout = componentThreadLayoutFrom(process.env);
  const args = parseCommandLine(process.argv.slice(2));
  const log = (line: string): void => console.log(line);
  if (args.controlPlanePorts) {
    runControlPlaneReplicas(
      { ...args, controlPlanePorts: args.controlPlanePorts, childArgs: replicaArgs(args) },
      log,
    ).catch(fail);
  } else {
    // A control plane started by runControlPlaneReplicas ends with the process that started it,
    // which holds the cluster's endpoint: a SIGKILLed supervisor leaves no control plane behind.
    if (args.leaderElectIdentity && process.channel) {
      process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
      process.channel.unref();
    }
    runControlPlane(args, log, {
      // Beside the bundle's entry or the compiled module. A worker thread cannot load the
      // TypeScript source (a loader such as tsx does not reach it), so from source the
      // components share the apiserver's thread.
      componentThreadEntries:
        entry?.endsWith('.js') && layout !== 'none'
          ? {
              components: join(dirname(entry), 'component-main.js'),
              scheduler: join(dirname(entry), 'scheduler-main.js'),
            }
          : undefined,
      componentThreadLayout: layout === 'shared' ? 'shared' : 'separate',
    }).catch(fail);
  }
} catch (error) {
  fail(error);
}
