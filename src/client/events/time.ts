import { randomUUID } from 'node:crypto';
import { isDns1123Subdomain } from '../../api/selectors/index.js';

/** metav1.Time: RFC 3339 with whole seconds. */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * Unix time in nanoseconds for event names: the clock's milliseconds, and below them the
 * nanoseconds of the monotonic clock, so two events of one object in one millisecond still get
 * different names (client-go reads a nanosecond clock).
 */
function unixNanos(ms: number): bigint {
  return BigInt(Math.floor(ms)) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
}

/**
 * `<involved object name>.<unix nanoseconds in hex>`, or a UUID when that is not a valid name
 * (client-go's `GenerateEventName`).
 */
export function generateEventName(referenceName: string, ms: number): string {
  const name = `${referenceName}.${unixNanos(ms).toString(16)}`;
  return isDns1123Subdomain(name).length === 0 ? name : randomUUID();
}
