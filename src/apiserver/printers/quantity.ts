// resource.Quantity's canonical text (Quantity.String()), which the printers show for capacities, quota
// usage and metric values: `1536Mi` for 1.5Gi, `500m` for 0.5, `2k` for 2000, `1e3` stays `1e3`.

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([suffix, e]) => [e, suffix]));
const BINARY_BY_POWER = new Map(Object.entries(BINARY_SUFFIXES).map(([suffix, p]) => [p, suffix]));

const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;
const NANOS_PER_UNIT = 10n ** 9n;

interface Parsed {
  /** The value in units of 10^-9, rounded away from zero as ParseQuantity rounds. */
  nanos: bigint;
  format: Format;
}

function parseSuffix(suffix: string): { format: Format; exp10: number; exp2: number } | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix))
    return { format: 'DecimalSI', exp10: DECIMAL_SUFFIXES[suffix]!, exp2: 0 };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix))
    return { format: 'BinarySI', exp10: 0, exp2: 10 * BINARY_SUFFIXES[suffix]! };
  const exponent = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (exponent) return { format: 'DecimalExponent', exp10: Number(exponent[1]), exp2: 0 };
  return undefined;
}

function parse(text: string): Parsed | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', suffixText = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  const suffix = parseSuffix(suffixText);
  if (!suffix) return undefined;
  // value = digits * 10^(exp10 - fraction digits) * 2^exp2, as an exact fraction numerator/denominator.
  let numerator = BigInt(`${whole}${fraction}` || '0') * 2n ** BigInt(suffix.exp2) * NANOS_PER_UNIT;
  let denominator = 1n;
  const exp10 = suffix.exp10 - fraction.length;
  if (exp10 >= 0) numerator *= 10n ** BigInt(exp10);
  else denominator = 10n ** BigInt(-exp10);
  // Amounts finer than a nano-unit round up, so that asking for a tiny amount still asks for some.
  let nanos = numerator / denominator;
  if (nanos * denominator !== numerator) nanos += 1n;
  let format = suffix.format;
  // A binary quantity below 1 cannot be written in binary units.
  if (format === 'BinarySI' && nanos > 0n && nanos < NANOS_PER_UNIT) format = 'DecimalSI';
  return { nanos: sign === '-' ? -nanos : nanos, format };
}

function removeFactors(value: bigint, factor: bigint): [bigint, number] {
  let amount = value;
  let times = 0;
  while (amount !== 0n && amount % factor === 0n) {
    amount /= factor;
    times++;
  }
  return [amount, times];
}

function decimalText(nanos: bigint, format: Format): string {
  let [mantissa, exponent] = removeFactors(nanos, 10n);
  exponent -= 9;
  // Exponents are kept at multiples of three, so the mantissa grows instead.
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  // Beyond E (or below n) Kubernetes finds no suffix and prints the mantissa alone.
  return `${mantissa}${DECIMAL_BY_EXPONENT.get(exponent) ?? ''}`;
}

/** Quantity.String() of a quantity as JSON holds it (a string, or a number); other values as they are. */
export function canonicalQuantity(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  if (text === '') return '0';
  const parsed = parse(text);
  if (!parsed) return text;
  const { nanos, format } = parsed;
  if (nanos === 0n) return '0';
  if (format === 'BinarySI') {
    const magnitude = nanos < 0n ? -nanos : nanos;
    // Small or fractional binary amounts print in decimal rather than rounded.
    if (magnitude < 1024n * NANOS_PER_UNIT || nanos % NANOS_PER_UNIT !== 0n)
      return decimalText(nanos, 'DecimalSI');
    const [amount, power] = removeFactors(nanos / NANOS_PER_UNIT, 1024n);
    return `${amount}${BINARY_BY_POWER.get(power) ?? ''}`;
  }
  return decimalText(nanos, format);
}

/** The canonical text of a *Quantity that may be nil: Go prints `<nil>` then. */
export function quantityOrNil(value: unknown): string {
  return value === undefined || value === null ? '<nil>' : canonicalQuantity(value);
}
