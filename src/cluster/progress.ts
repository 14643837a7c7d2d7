// Long operations run as named steps, one progress line each (kind's style). Progress goes to
// stderr, leaving stdout to results; it is animated on a terminal and plain lines otherwise.
import { Listr, ListrLogger, ProcessOutput } from 'listr2';
import type { Environment } from './state.js';

/** `interactive`: animated; `plain`: one line per event (no TTY, or CI); `silent`: nothing. */
export type ProgressMode = 'interactive' | 'plain' | 'silent';

export interface Step {
  title: string;
  /** `report` shows a detail under the step's line (e.g. the node image build's stages). */
  run: (report: (detail: string) => void) => Promise<void>;
}

export function defaultProgressMode(
  stream: { isTTY?: boolean } = process.stderr,
  env: Environment = process.env,
): ProgressMode {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  // NO_COLOR (no-color.org): no colours, and no animation either.
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return stream.isTTY === true && !ci && !noColor ? 'interactive' : 'plain';
}

/** The title of the step that failed, for the caller's one-line error. */
export function failedStepOf(error: unknown): string | undefined {
  return failedSteps.get(error as object);
}
const failedSteps = new WeakMap<object, string>();

/** Runs the steps in order; the first failure stops the rest and is rethrown as it was. */
export async function runSteps(steps: Step[], mode: ProgressMode): Promise<void> {
  const processOutput = new ProcessOutput(process.stderr, process.stderr);
  const logger = new ListrLogger({ processOutput });
  let failure: { error: unknown } | undefined;
  const list = new Listr(
    steps.map((step) => ({
      title: step.title,
      task: async (_context, task) => {
        try {
          await step.run((detail) => {
            task.output = detail;
          });
        } catch (error) {
          failure = { error };
          if (typeof error === 'object' && error !== null) failedSteps.set(error, step.title);
          // The progress line shows the first line only; the caller reports the whole error.
          throw new Error(firstLine(error));
        }
      },
    })),
    {
      concurrent: false,
      exitOnError: true,
      registerSignalListeners: false,
      renderer: 'default',
      rendererOptions: { logger, showErrorMessage: false },
      fallbackRenderer: 'simple',
      fallbackRendererOptions: { logger },
      fallbackRendererCondition: mode === 'plain',
      silentRendererCondition: mode === 'silent',
      forceTTY: mode === 'interactive',
    },
  );
  try {
    await list.run();
  } catch (error) {
    throw failure ? failure.error : error;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n', 1)[0] ?? '';
}
