// Go's time.ParseDuration (`5s`, `1m30s`, `500ms`, `-1.5h`, `0`), in milliseconds: the form
// upstream's duration flags and the metrics API's `window` take.

/** Milliseconds per unit, as Go's unitMap (micro as U+00B5 or U+03BC, escaped to keep bundles Latin-1). */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 0.000_001,
  us: 0.001,
  '\u00b5s': 0.001,
  '\u03bcs': 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** The longest time.Duration, 2^63-1 ns. */
const MAX_MS = 9_223_372_036_854.775;

/** A Go duration in milliseconds; undefined when time.ParseDuration would refuse the text. */
export function parseGoDurationMs(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  let rest = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  // Go's one unitless duration.
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let totalMs = 0;
  while (rest.length > 0) {
    // A number (digits, a fraction or both), then the unit: everything up to the next number.
    const match = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/.exec(rest);
    const whole = match?.[1] ?? '';
    const fraction = match?.[2] ?? '';
    const unitMs = UNIT_MS[match?.[3] ?? ''];
    if (match === null || (whole === '' && fraction === '') || unitMs === undefined) return undefined;
    totalMs += Number(`${whole || '0'}.${fraction || '0'}`) * unitMs;
    rest = rest.slice(match[0].length);
  }
  return totalMs > MAX_MS ? undefined : sign * totalMs;
}
