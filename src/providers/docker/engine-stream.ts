// The engine answers imports and builds with a stream of JSON messages, one a line; a failure
// arrives as a message with `error`, not as an HTTP status.

export interface EngineMessage {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/** Reads every message; throws the first error message, with `context` before it. */
export async function readEngineMessages(
  stream: NodeJS.ReadableStream,
  context: string,
  onMessage?: (message: EngineMessage) => void,
): Promise<EngineMessage[]> {
  const messages: EngineMessage[] = [];
  let pending = '';
  const take = (line: string) => {
    if (line.trim() === '') return;
    const message = JSON.parse(line) as EngineMessage;
    if (message.error !== undefined || message.errorDetail?.message !== undefined) {
      throw new Error(`${context}: ${message.errorDetail?.message ?? message.error}`);
    }
    messages.push(message);
    onMessage?.(message);
  };
  for await (const chunk of stream) {
    pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      take(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  }
  take(pending);
  return messages;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
