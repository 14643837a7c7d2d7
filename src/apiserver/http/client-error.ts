// Go's net/http on an HTTP/1.1 connection whose next bytes are not a request: the request already
// read (a DELETE without Content-Length or chunking has no body, so what follows it is the next
// "request") runs and its answer is written first; only then does the malformed remainder get
// "400 Bad Request" and the connection close. Node's default instead answers 400 at once and
// destroys the socket, dropping the answer of a request that has run (issue 21).
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

interface ClientErrorServer {
  on(event: 'clientError', listener: (error: Error & { code?: string }, socket: Duplex) => void): unknown;
}

/** The status line Node's default clientError handling picks for a parser or timeout error. */
function refusalFor(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return '431 Request Header Fields Too Large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return '413 Payload Too Large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return '408 Request Timeout';
    default:
      return '400 Bad Request';
  }
}

/** Answers HTTP/1.1 parse errors only after the response in flight on that connection is written. */
export function answerClientErrorsInOrder(server: ClientErrorServer): void {
  server.on('clientError', (error, socket) => {
    let refused = false;
    const refuse = () => {
      if (refused) return;
      refused = true;
      if (!socket.writable || error.code === 'ECONNRESET') {
        socket.destroy();
        return;
      }
      socket.once('finish', () => socket.destroy());
      socket.end(`HTTP/1.1 ${refusalFor(error.code)}\r\nConnection: close\r\n\r\n`);
    };
    // Node keeps the response being written on a connection as the socket's _httpMessage.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight && !inFlight.writableFinished && !inFlight.destroyed) {
      inFlight.once('finish', refuse);
      inFlight.once('close', refuse);
    } else refuse();
  });
}
