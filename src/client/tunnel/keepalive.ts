// HTTP/2 pings over a tunnel's connection, from either end: TCP alone may never notice a peer that
// vanished (a killed process, a paused container, a dropped network), so a ping still unanswered
// when the next one is due declares the connection dead.
import type { Http2Session } from 'node:http2';

/** Pings `session` every `intervalMs`; calls `onDead` once when a ping fails or goes unanswered. */
export function keepAlive(
  session: Http2Session,
  intervalMs: number,
  onDead: (error: Error) => void,
): () => void {
  let awaiting = false;
  let dead = false;
  const die = (error: Error) => {
    if (dead) return;
    dead = true;
    clearInterval(timer);
    onDead(error);
  };
  const timer = setInterval(() => {
    if (session.destroyed || session.closed) return;
    if (awaiting) {
      die(new Error(`no answer to a ping within ${intervalMs} ms`));
      return;
    }
    awaiting = true;
    try {
      session.ping((error) => {
        awaiting = false;
        if (error) die(new Error(`ping failed: ${error.message}`));
      });
    } catch (error) {
      die(error as Error);
    }
  }, intervalMs);
  timer.unref();
  return () => {
    dead = true;
    clearInterval(timer);
  };
}
