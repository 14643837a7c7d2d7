// The tunnel's wire format (tkube's own; konnectivity's gRPC packets play this part upstream): one
// byte stream carries frames of a 9-byte header — type, stream id, payload length — and a payload.
// The dialing side opens streams (OPEN → OPEN_OK or OPEN_FAIL); either side sends DATA within the
// credit its peer granted (WINDOW), ends its half (CLOSE) or aborts the stream (RESET).

export const FrameType = {
  Open: 1,
  OpenOk: 2,
  OpenFail: 3,
  Data: 4,
  Window: 5,
  Close: 6,
  Reset: 7,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export interface Frame {
  readonly type: FrameType;
  readonly id: number;
  readonly payload: Buffer;
}

export const FRAME_HEADER_BYTES = 9;
/** The largest DATA payload a sender cuts; a frame beyond MAX_FRAME_PAYLOAD breaks the tunnel. */
export const MAX_DATA_PAYLOAD = 16 * 1024;
export const MAX_FRAME_PAYLOAD = 64 * 1024;

export function encodeFrame(type: FrameType, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(id, 1);
  header.writeUInt32BE(payload.length, 5);
  return payload.length === 0 ? header : Buffer.concat([header, payload]);
}

export function encodeWindow(id: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return encodeFrame(FrameType.Window, id, payload);
}

/** Collects bytes as they arrive and hands out whole frames; throws on a malformed one. */
export class FrameReader {
  private buffered: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer): Frame[] {
    this.buffered.push(chunk);
    this.size += chunk.length;
    const frames: Frame[] = [];
    while (this.size >= FRAME_HEADER_BYTES) {
      const head = this.peek(FRAME_HEADER_BYTES);
      const type = head.readUInt8(0);
      const length = head.readUInt32BE(5);
      if (type < FrameType.Open || type > FrameType.Reset)
        throw new Error(`tunnel: unknown frame type ${type}`);
      if (length > MAX_FRAME_PAYLOAD) throw new Error(`tunnel: frame of ${length} bytes exceeds the limit`);
      if (this.size < FRAME_HEADER_BYTES + length) break;
      const whole = this.take(FRAME_HEADER_BYTES + length);
      frames.push({
        type: type as FrameType,
        id: whole.readUInt32BE(1),
        payload: whole.subarray(FRAME_HEADER_BYTES),
      });
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.buffered[0]!.length < bytes) this.buffered = [Buffer.concat(this.buffered)];
    return this.buffered[0]!.subarray(0, bytes);
  }

  private take(bytes: number): Buffer {
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    return taken;
  }
}

/**
 * Where an agent opens its node's tunnel: an HTTP/2 POST whose request and response bodies are
 * the two directions of the frame stream. Only node identities may open one.
 */
export const TUNNEL_PATH = '/tkube-internal/v1/tunnel';
