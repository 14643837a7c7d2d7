// Runs a command in a container (docker exec) with optional stdin, collecting its output.
import { PassThrough, Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import type { ExecOptions, ExecResult } from '../types.js';

export async function execInContainer(
  docker: Dockerode,
  container: string,
  command: string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const withInput = options.input !== undefined;
  const exec = await docker.getContainer(container).exec({
    Cmd: command,
    AttachStdin: withInput,
    AttachStdout: true,
    AttachStderr: true,
    Env: Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`),
    WorkingDir: options.workingDir,
  });
  const stream = (await exec.start({ hijack: true, stdin: withInput })) as NodeJS.ReadWriteStream &
    Partial<Pick<NodeJS.WritableStream, 'end'>> & { destroy?: (error?: Error) => void };
  const stdout = collect();
  const stderr = collect();
  docker.modem.demuxStream(stream, stdout.sink, stderr.sink);

  const abort = () => stream.destroy?.(new Error('exec aborted'));
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    const finished = new Promise<void>((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', reject);
    });
    const written = options.input === undefined ? endInput(stream) : writeInput(stream, options.input);
    await Promise.all([finished, written]);
  } catch (error) {
    stream.destroy?.();
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
  options.signal?.throwIfAborted();
  return { exitCode: await exitCode(exec), stdout: stdout.text(), stderr: stderr.text() };
}

async function endInput(stream: NodeJS.WritableStream): Promise<void> {
  stream.end();
}

/**
 * Pipes the input, then ends only the writing half: closing stdin must not cut the command's
 * output short. A command that exits before reading everything closes the stream: done too.
 */
function writeInput(
  stream: NodeJS.ReadWriteStream,
  input: string | Uint8Array | NodeJS.ReadableStream,
): Promise<void> {
  const source =
    typeof input === 'string' || input instanceof Uint8Array ? Readable.from([Buffer.from(input)]) : input;
  return new Promise<void>((resolve, reject) => {
    source.once('end', resolve);
    source.once('error', reject);
    stream.once('close', resolve);
    source.pipe(stream, { end: true });
  });
}

/** The exit code; docker may report the exec as running for a moment after its output ends. */
async function exitCode(exec: Dockerode.Exec): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null) return info.ExitCode;
    if (attempt >= 100) throw new Error('docker exec: the command ended but its exit code never appeared');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function collect(): { sink: PassThrough; text: () => string } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { sink, text: () => Buffer.concat(chunks).toString('utf8') };
}
