// apiserver's StreamTranslatorProxy (staging/src/k8s.io/apiserver/pkg/util/proxy/
// streamtranslator.go, KEP-4006): a pods/exec or pods/attach WebSocket with the v5.channel.k8s.io
// protocol ends here; the streams go on to the kubelet over SPDY (remotecommand v4), so stdin can
// be half-closed (v5's CLOSE signal) where the WebSocket protocols of the kubelet cannot.
// Channel 0 stdin, 1 stdout, 2 stderr, 3 error (the kubelet's Status JSON, passed on as it is),
// 4 resize (the kubelet's JSON size, passed on as it is), 255 CLOSE.
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { internalError } from '../status.js';
import { SpdyClientConnection, type SpdyClientStream, type SpdyStreamHandlers } from './spdy-client.js';
import { readRefusalBody, sendUpgradeRequest } from './upgrade-response.js';
import { pauseUntilDrained, rawDataBuffer, sendPaced } from './websocket-flow.js';
import { Channel, CLOSE_CHANNEL } from './websocket-protocols.js';

export interface ExecStreams {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

function channelMessage(channel: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.of(channel), data]);
}

/** Writes an error as a Status on the error channel and closes, as upstream's writeStatus. */
function failWith(ws: WebSocket, error: unknown): void {
  const status = internalError(error).toStatus();
  if (ws.readyState === ws.OPEN) {
    ws.send(channelMessage(Channel.error, Buffer.from(JSON.stringify(status))));
    ws.close(1000);
  }
}

/**
 * Serves the accepted WebSocket `ws` over the kubelet connection `backend`, to which the SPDY
 * upgrade request `request` is sent. Resolves when both ends are closed.
 */
export async function translateExec(
  ws: WebSocket,
  backend: Duplex,
  request: string,
  streams: ExecStreams,
): Promise<void> {
  const finished = new Promise<void>((resolve) => {
    ws.once('close', () => {
      backend.destroy();
      resolve();
    });
  });
  // Messages that arrive while the kubelet connection is set up wait for it.
  const early: RawData[] = [];
  const collect = (data: RawData) => early.push(data);
  ws.on('message', collect);
  let response: Awaited<ReturnType<typeof sendUpgradeRequest>>;
  try {
    response = await sendUpgradeRequest(backend, request);
  } catch (error) {
    failWith(ws, new Error(`error sending request: ${(error as Error).message}`));
    return finished;
  }
  if (response.status !== 101) {
    const body = (await readRefusalBody(backend, response)).trim();
    failWith(ws, new Error(`unable to upgrade connection: ${body}`));
    return finished;
  }
  const spdy = new SpdyClientConnection(backend, response.rest);
  backend.resume();
  const forward = (channel: number) => (data: Buffer) =>
    sendPaced(ws, channelMessage(channel, data), backend);
  // The streams are opened in the order client-go creates them (error first), their SYN_STREAMs
  // sent together in one write: the runtime starts the process once every stream it expects is
  // there, and nothing needs awaiting before the next one is opened.
  const open = (streamType: string, handlers: SpdyStreamHandlers = {}) => spdy.open({ streamType }, handlers);
  backend.cork();
  const opened: Partial<Record<keyof typeof Channel, SpdyClientStream>> = {
    error: open('error', {
      onData: forward(Channel.error),
      // The Status is the last thing the kubelet sends: the exchange is over.
      onEnd: () => setImmediate(() => ws.close(1000)),
    }),
    stdin: streams.stdin ? open('stdin') : undefined,
    stdout: streams.stdout ? open('stdout', { onData: forward(Channel.stdout) }) : undefined,
    stderr: streams.stderr && !streams.tty ? open('stderr', { onData: forward(Channel.stderr) }) : undefined,
    resize: streams.tty ? open('resize') : undefined,
  };
  backend.uncork();
  backend.once('close', () => setImmediate(() => ws.close(1000)));
  const onMessage = (data: RawData) => {
    const message = rawDataBuffer(data);
    if (message.length === 0) return;
    const channel = message[0]!;
    const payload = message.subarray(1);
    if (channel === CLOSE_CHANNEL) {
      if (payload[0] === Channel.stdin) opened.stdin?.end();
      return;
    }
    const target =
      channel === Channel.stdin ? opened.stdin : channel === Channel.resize ? opened.resize : undefined;
    if (target && !target.write(payload)) pauseUntilDrained(ws, backend);
  };
  ws.off('message', collect);
  for (const data of early) onMessage(data);
  ws.on('message', onMessage);
  return finished;
}
