// The flow-control windows the apiserver grants its clients for request bodies, as kube-apiserver
// sizes them: 256 KiB per stream (its 99th-percentile body) and that times its 250 concurrent
// streams per connection. HTTP/2's default, 64 KiB for the whole connection, lets a client with
// many writes in flight (a controller's burst, `kubectl apply` of many objects) send only 64 KiB
// per round trip of WINDOW_UPDATE.
import type { Http2Session, ServerOptions } from 'node:http2';

const STREAM_WINDOW_BYTES = 256 * 1024;
const CONNECTION_WINDOW_BYTES = STREAM_WINDOW_BYTES * 250;

/** Settings for an apiserver's HTTP/2 server. */
export const APISERVER_HTTP2_SETTINGS: ServerOptions['settings'] = {
  initialWindowSize: STREAM_WINDOW_BYTES,
};

/** Widens a new server session's connection window; call from the server's 'session' event. */
export function widenConnectionWindow(session: Http2Session): void {
  session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
}
