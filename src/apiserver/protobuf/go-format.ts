// The text forms Go gives times and durations, as the JSON forms of metav1.Time, MicroTime and Duration
// use them.
const NANOS_PER_SECOND = 1_000_000_000n;
/** Seconds from 1970 of Go's zero time.Time (0001-01-01T00:00:00Z), which metav1 prints as null. */
export const GO_ZERO_TIME_SECONDS = -62_135_596_800n;

/** `time.RFC3339` of a UTC time: `2006-01-02T15:04:05Z`. */
export function formatRfc3339(seconds: bigint): string {
  return `${formatDateTime(seconds)}Z`;
}

/** metav1.RFC3339Micro of a UTC time: `2006-01-02T15:04:05.000000Z`; nanos are truncated to micros. */
export function formatRfc3339Micro(seconds: bigint, nanos: bigint): string {
  const total = seconds * NANOS_PER_SECOND + nanos;
  let whole = total / NANOS_PER_SECOND;
  let fraction = total % NANOS_PER_SECOND;
  if (fraction < 0n) {
    whole -= 1n;
    fraction += NANOS_PER_SECOND;
  }
  const micros = String(fraction / 1000n).padStart(6, '0');
  return `${formatDateTime(whole)}.${micros}Z`;
}

const SECONDS_PER_DAY = 86_400n;

/** Floor division and its non-negative remainder (bigint `/` truncates toward zero). */
function floorDivMod(value: bigint, divisor: bigint): [bigint, bigint] {
  let quotient = value / divisor;
  let remainder = value % divisor;
  if (remainder < 0n) {
    quotient -= 1n;
    remainder += divisor;
  }
  return [quotient, remainder];
}

/**
 * The proleptic Gregorian date of a day count from 1970-01-01, in exact integer arithmetic,
 * so every int64 second count Go can hold formats (a JavaScript Date ends at year 275760).
 */
function civilFromDays(days: bigint): { year: bigint; month: bigint; day: bigint } {
  const shifted = days + 719_468n; // from 0000-03-01
  const [era] = floorDivMod(shifted, 146_097n);
  const dayOfEra = shifted - era * 146_097n;
  const yearOfEra = (dayOfEra - dayOfEra / 1_460n + dayOfEra / 36_524n - dayOfEra / 146_096n) / 365n;
  const dayOfYear = dayOfEra - (365n * yearOfEra + yearOfEra / 4n - yearOfEra / 100n);
  const monthIndex = (5n * dayOfYear + 2n) / 153n; // March = 0
  const day = dayOfYear - (153n * monthIndex + 2n) / 5n + 1n;
  const month = monthIndex < 10n ? monthIndex + 3n : monthIndex - 9n;
  return { year: yearOfEra + era * 400n + (month <= 2n ? 1n : 0n), month, day };
}

function formatDateTime(seconds: bigint): string {
  const [days, secondOfDay] = floorDivMod(seconds, SECONDS_PER_DAY);
  const { year, month, day } = civilFromDays(days);
  const two = (value: bigint): string => String(value).padStart(2, '0');
  // Go pads the year to four digits and writes a sign only for negative years.
  const yearText = `${year < 0n ? '-' : ''}${String(year < 0n ? -year : year).padStart(4, '0')}`;
  return (
    `${yearText}-${two(month)}-${two(day)}` +
    `T${two(secondOfDay / 3_600n)}:${two((secondOfDay / 60n) % 60n)}:${two(secondOfDay % 60n)}`
  );
}

/** Go's time.Duration.String: `0s`, `1.5s`, `2m0s`, `1h0m0s`, `300ms`, `1.5µs`, `10ns`. */
export function formatGoDuration(nanoseconds: bigint): string {
  const negative = nanoseconds < 0n;
  const magnitude = negative ? -nanoseconds : nanoseconds;
  const sign = negative ? '-' : '';
  if (magnitude === 0n) return '0s';
  if (magnitude < NANOS_PER_SECOND) {
    if (magnitude < 1_000n) return `${sign}${magnitude}ns`;
    if (magnitude < 1_000_000n) return `${sign}${withFraction(magnitude, 3)}µs`;
    return `${sign}${withFraction(magnitude, 6)}ms`;
  }
  const seconds = withFraction(magnitude % (60n * NANOS_PER_SECOND), 9);
  const minutes = magnitude / (60n * NANOS_PER_SECOND);
  if (minutes === 0n) return `${sign}${seconds}s`;
  if (minutes < 60n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${minutes / 60n}h${minutes % 60n}m${seconds}s`;
}

/** value / 10^digits with the fraction's trailing zeros (and a bare point) left off. */
function withFraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const fraction = String(value % scale)
    .padStart(digits, '0')
    .replace(/0+$/, '');
  return fraction ? `${value / scale}.${fraction}` : `${value / scale}`;
}
