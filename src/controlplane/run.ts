// Running a control plane in the foreground until a signal: shared by the lean entry point
// (main.ts) and the hidden `tkube controlplane` command.
import { parseArgs } from 'node:util';
import { startControlPlane } from './control-plane.js';

export interface ControlPlaneArgs {
  readonly stateDir: string;
  readonly apiPort: number;
  readonly bindAddresses?: readonly string[];
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function runControlPlane(args: ControlPlaneArgs, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const running = await startControlPlane(args);
  log(`control plane serving on port ${running.port} (ready in ${Date.now() - started} ms)`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      log(`received ${signal}, shutting down`);
      running.stop().then(resolve, (error: unknown) => {
        console.error(error);
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  log('control plane stopped');
}

export function parseCommandLine(argv: string[]): ControlPlaneArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      'state-dir': { type: 'string' },
      'api-port': { type: 'string' },
      'bind-address': { type: 'string', multiple: true },
    },
    strict: true,
  });
  const apiPort = Number(values['api-port']);
  if (!values['state-dir'] || !Number.isInteger(apiPort) || apiPort < 0 || apiPort > 65535) {
    throw new Error('usage: main.js --state-dir DIR --api-port PORT [--bind-address IP]...');
  }
  return { stateDir: values['state-dir'], apiPort, bindAddresses: values['bind-address'] };
}
