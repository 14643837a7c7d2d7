// The CRI container log format containerd writes: one line per record,
// `<RFC3339Nano timestamp> <stdout|stderr> <F|P>[:more tags] <content>`, where P marks a partial
// line continued by the next record.

export interface LogRecord {
  /** The timestamp as written (RFC3339Nano), printed back unchanged with `timestamps`. */
  readonly timestamp: string;
  /** Milliseconds since the epoch, for sinceSeconds / sinceTime. */
  readonly time: number;
  readonly stream: 'stdout' | 'stderr';
  /** The content; a full (F) record keeps its newline, a partial (P) one has none. */
  readonly log: Buffer;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/** Parses one record (with or without its newline); undefined for a line that is not CRI format. */
export function parseCriLogLine(line: Buffer): LogRecord | undefined {
  const first = line.indexOf(SPACE);
  if (first < 0) return undefined;
  const timestamp = line.subarray(0, first).toString('latin1');
  const time = Date.parse(timestamp);
  if (Number.isNaN(time) || !/^\d{4}-\d\d-\d\dT/.test(timestamp)) return undefined;
  const second = line.indexOf(SPACE, first + 1);
  if (second < 0) return undefined;
  const stream = line.subarray(first + 1, second).toString('latin1');
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  const third = line.indexOf(SPACE, second + 1);
  if (third < 0) return undefined;
  const tag = line
    .subarray(second + 1, third)
    .toString('latin1')
    .split(':')[0];
  let content = line.subarray(third + 1);
  // A partial record's newline is the file's, not the container's.
  if (tag === 'P' && content.length > 0 && content[content.length - 1] === NEWLINE) {
    content = content.subarray(0, content.length - 1);
  }
  return { timestamp, time, stream, log: content };
}
