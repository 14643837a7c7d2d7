// No upstream counterpart: Go's io.Copy reuses one buffer, while each read of a Node socket (and
// each 16 KiB a TLS socket decrypts) is a new ArrayBuffer. V8 counts those external bytes against
// the old generation's limit until a scavenge frees them. The control plane's old generation is
// small (about 20 MB, its limit about 9 MB above) and its young generation fills slowly while
// bytes stream, so at 100+ MB/s a port forward reached the limit every 15-20 MB: a mark-compact
// every ~100 ms (--trace-gc: "Start (allocation limit) 19MB / 29MB / 10MB"), a quarter to a third
// of the process's CPU. A scavenge every few MB streamed frees the buffers first (measured on a
// 128 MiB download: mark-compacts 6-7 -> 0-1, control-plane CPU per GiB 6.4-7.6 s -> 4.2-4.5).
// Needs `--expose-gc` (CONTROL_PLANE_NODE_FLAGS); without it (the node agent) this does nothing.
import { exposedGc } from './heap-release.js';

/** Bytes streamed between two scavenges: well under the old generation's slack. */
export const STREAMED_BYTES_PER_SCAVENGE = 4 * 1024 * 1024;

let sinceScavenge = 0;

/** Counts bytes a stream copy handed on; every STREAMED_BYTES_PER_SCAVENGE of them, one scavenge. */
export function noteStreamedBytes(bytes: number): void {
  sinceScavenge += bytes;
  if (sinceScavenge < STREAMED_BYTES_PER_SCAVENGE) return;
  sinceScavenge = 0;
  // A scavenge of the young generation only (about a millisecond), run here and now.
  void exposedGc()?.({ type: 'minor', execution: 'sync' });
}
