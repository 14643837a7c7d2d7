// Durations as kube-apiserver prints them (apimachinery's duration.HumanDuration): about two or three
// significant figures, e.g. 45s, 2m3s, 10m, 3h5m, 2d3h, 8d, 2y45d.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** HumanDuration of a duration given in milliseconds. */
export function humanDuration(ms: number): string {
  // A clock skew of up to two seconds still reads as "now"; more than that is invalid.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const days = Math.trunc(hours / 24);
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

const FRACTION = /\.(\d+)/;

/**
 * Milliseconds since the epoch of an RFC 3339 timestamp, or undefined for a missing (zero) time. The
 * microseconds of a MicroTime are kept as a fraction: durations are truncated to whole seconds, so
 * 29.999999s must not round up to 30s.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const fraction = FRACTION.exec(value);
  const ms = Date.parse(fraction ? value.replace(FRACTION, '') : value);
  if (Number.isNaN(ms)) return undefined;
  return fraction ? ms + Number(`0.${fraction[1]}`) * 1000 : ms;
}

/** The age of a timestamp (translateTimestampSince): `<unknown>` when it is not set. */
export function since(value: unknown, now: Date): string {
  const ms = parseTimestamp(value);
  return ms === undefined ? '<unknown>' : humanDuration(now.getTime() - ms);
}
